import { startDevnet } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import { Registry } from 'prom-client';
import { startIndexer } from '../services/indexer/src/indexer';
import { startGatewayUnderTest } from './gateway-harness';
import { openSnapshotStream } from './sse-client';
import { percentile } from './stats';
import type { Bench } from './types';

const SAMPLES = 200;
const TARGET_MEDIAN_MS = 50;

/**
 * Chain change → SSE client: from the devnet's account write (its hook, in this
 * process) to a /stream client of a gateway process receiving the snapshot of that
 * slot, through WebSocket, indexer, NATS and gateway.
 */
const bench: Bench = async () => {
  const gateway = await startGatewayUnderTest(1, {}, false);
  const devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 50, historyRounds: 5, seed: 9 });
  const indexer = await startIndexer(
    {
      databaseUrl: gateway.db.url,
      natsUrl: gateway.ns.natsUrl,
      natsPrefix: gateway.ns.natsPrefix,
      rpcUrl: devnet.rpcUrl,
      wsUrl: devnet.wsUrl,
      programId: devnet.programId,
      pollIntervalMs: 1000,
      slotSeconds: 0.4,
    },
    { logger: createLogger({ service: 'bench', silent: true }), metrics: new Registry() },
  );
  const writtenAt = new Map<number, number>();
  const stopHook = devnet.onAccountWrite((_address, slot) => {
    if (!writtenAt.has(slot)) writtenAt.set(slot, performance.now());
  });
  const latencies: number[] = [];
  let close = (): void => undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('too few snapshots')), 120_000);
      let first = true;
      openSnapshotStream(`${gateway.url}/api/v1/stream`, { Authorization: `Bearer ${gateway.keys[0]}` }, (slot, now) => {
        // The first event is the state at connect time, not a fresh change.
        if (first) {
          first = false;
          return;
        }
        const written = writtenAt.get(slot);
        if (written !== undefined) latencies.push(now - written);
        if (latencies.length >= SAMPLES) {
          clearTimeout(timer);
          resolve();
        }
      }).then((socket) => (close = () => socket.destroy()), reject);
    });
  } finally {
    close();
    stopHook();
    await indexer.stop();
    await devnet.stop();
    await gateway.stop();
  }
  const median = percentile(latencies, 50);
  return [
    { key: 'sse.chainMedianMs', label: 'chain change → SSE client, median', value: median, unit: 'ms', target: `< ${TARGET_MEDIAN_MS}`, met: median < TARGET_MEDIAN_MS },
    { key: 'sse.chainP99Ms', label: 'chain change → SSE client, p99', value: percentile(latencies, 99), unit: 'ms' },
  ];
};

export default bench;
