import { readFileSync } from 'node:fs';
import { connectBus } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { sampleSnapshot, startGatewayUnderTest } from './gateway-harness';
import { openSnapshotStream } from './sse-client';
import { percentile } from './stats';
import type { Bench } from './types';

const CLIENTS = 10_000;
const KEYS = 250;
const SNAPSHOTS = 5;
const CONNECT_BATCH = 250;

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

/**
 * 10,000 concurrent /stream clients on one gateway process: memory per connection, and
 * for snapshots published on NATS, the time until each client has it (p99), every
 * client receiving each snapshot or, coalesced, a newer one.
 */
const bench: Bench = async () => {
  // The figure is delivery to 10,000 connected clients. The admission caps of issue 12
  // (STREAMS_PER_KEY 5, STREAMS_PER_ADDRESS 20 by default) would refuse most of them here,
  // where every client shares loopback and 250 keys; they are raised for this process only.
  const gateway = await startGatewayUnderTest(KEYS, { STREAMS_PER_KEY: String(CLIENTS / KEYS), STREAMS_PER_ADDRESS: String(CLIENTS) });
  const received: Map<number, number>[] = [];
  const sockets: { destroy(): void }[] = [];
  const logger = createLogger({ service: 'bench', silent: true });
  const bus = await connectBus({ servers: gateway.ns.natsUrl, name: 'bench', logger });
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const before = rssBytes(gateway.pid);
    const connect = (i: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const seen = new Map<number, number>();
        received.push(seen);
        openSnapshotStream(`${gateway.url}/api/v1/stream`, { Authorization: `Bearer ${gateway.keys[i % KEYS]}` }, (slot, at) => {
          seen.set(slot, at);
          if (seen.size === 1) resolve();
        }).then((socket) => sockets.push(socket), reject);
      });
    for (let i = 0; i < CLIENTS; i += CONNECT_BATCH) {
      await Promise.all(Array.from({ length: Math.min(CONNECT_BATCH, CLIENTS - i) }, (_, k) => connect(i + k)));
    }
    const after = rssBytes(gateway.pid);
    const names = natsNames(gateway.ns.natsPrefix);
    const base = sampleSnapshot();
    const published: { slot: number; at: number }[] = [];
    for (let n = 1; n <= SNAPSHOTS; n++) {
      const slot = base.slot + n * 10;
      const snapshot = { ...base, slot, updatedAt: new Date().toISOString() };
      published.push({ slot, at: performance.now() });
      bus.publish(names.subjects.liveUpdated, new TextEncoder().encode(JSON.stringify(snapshot)));
      await new Promise((r) => setTimeout(r, 1500));
    }
    const delays: number[] = [];
    let missed = 0;
    for (const seen of received) {
      for (const p of published) {
        // The snapshot itself, or (coalesced) the first newer one the client got.
        const got = [...seen.entries()].filter(([slot]) => slot >= p.slot).map(([, at]) => at);
        if (got.length === 0) missed++;
        else delays.push(Math.min(...got) - p.at);
      }
    }
    const perConnection = Math.round((after - before) / CLIENTS);
    const p99 = percentile(delays, 99);
    return [
      { key: 'sse.clients', label: 'concurrent /stream clients', value: CLIENTS, unit: 'clients' },
      { key: 'sse.missed', label: 'snapshot deliveries missed (neither it nor a newer one)', value: missed, unit: 'deliveries', target: '= 0', met: missed === 0 },
      { key: 'sse.deliveryP99Ms', label: 'SSE delivery p99 (NATS publish → client)', value: p99, unit: 'ms', target: '< 250', met: p99 < 250 },
      { key: 'sse.bytesPerConnection', label: 'gateway memory per connection', value: perConnection, unit: 'bytes', target: '<= 16384', met: perConnection <= 16_384 },
    ];
  } finally {
    for (const s of sockets) s.destroy();
    await bus.drain();
    await gateway.stop();
  }
};

export default bench;
