import { connectBus, decodeMessage } from '@gridlab/bus';
import { eventValidator, natsNames } from '@gridlab/contracts';
import { startDevnet } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import { createTestDatabase, testNamespace } from '@gridlab/testing';
import { Registry } from 'prom-client';
import { startIndexer } from '../services/indexer/src/indexer';
import { percentile } from './stats';
import type { Bench } from './types';

const validateLiveSnapshot = eventValidator('liveUpdated');

const SAMPLES = 300;
const TARGET_MEDIAN_MS = 20;

/**
 * Chain change → NATS snapshot: from the moment the devnet writes an account (its
 * write hook, same process and clock) to the moment a subscriber receives the snapshot
 * of that slot, through the devnet's WebSocket, the indexer and NATS.
 */
const bench: Bench = async () => {
  const logger = createLogger({ service: 'bench', silent: true });
  const devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 50, historyRounds: 10, seed: 8 });
  const db = await createTestDatabase();
  const ns = testNamespace();
  const names = natsNames(ns.natsPrefix);
  const indexer = await startIndexer(
    {
      databaseUrl: db.url,
      natsUrl: ns.natsUrl,
      natsPrefix: ns.natsPrefix,
      rpcUrl: devnet.rpcUrl,
      wsUrl: devnet.wsUrl,
      programId: devnet.programId,
      pollIntervalMs: 1000,
      slotSeconds: 0.4,
    },
    { logger, metrics: new Registry() },
  );
  const bus = await connectBus({ servers: ns.natsUrl, name: 'bench', logger });
  const writtenAt = new Map<number, number>();
  const latencies: number[] = [];
  const stopHook = devnet.onAccountWrite((_address, slot) => {
    if (!writtenAt.has(slot)) writtenAt.set(slot, performance.now());
  });
  const done = new Promise<void>((resolve) => {
    const seen = new Set<number>();
    bus.subscribe(names.subjects.liveUpdated, {
      callback: (_error, msg) => {
        const received = performance.now();
        const snapshot = decodeMessage(validateLiveSnapshot, msg.data);
        const written = writtenAt.get(snapshot.slot);
        if (written === undefined || seen.has(snapshot.slot)) return;
        seen.add(snapshot.slot);
        latencies.push(received - written);
        if (latencies.length >= SAMPLES) resolve();
      },
    });
  });
  try {
    await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error('too few snapshots')), 120_000))]);
  } finally {
    stopHook();
    await bus.drain();
    await indexer.stop();
    await devnet.stop();
    await db.drop();
    await ns.cleanup();
  }
  const median = percentile(latencies, 50);
  return [
    { key: 'snapshot.latencyMedianMs', label: 'chain change → NATS snapshot, median', value: median, unit: 'ms', target: `< ${TARGET_MEDIAN_MS}`, met: median < TARGET_MEDIAN_MS },
    { key: 'snapshot.latencyP99Ms', label: 'chain change → NATS snapshot, p99', value: percentile(latencies, 99), unit: 'ms' },
  ];
};

export default bench;
