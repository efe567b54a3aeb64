import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectBus } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { freePort, sampleSnapshot, startGatewayUnderTest } from './gateway-harness';
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

interface Fanout {
  /** Deliveries neither received nor superseded by a newer snapshot. */
  readonly missed: number;
  readonly p99Ms: number;
}

/**
 * CLIENTS stream clients on `url` (the i-th with headers(i)); SNAPSHOTS snapshots published
 * on NATS 1.5 s apart; for each client and snapshot, the time from publish until it has that
 * snapshot or, coalesced, a newer one. `measured` runs once all clients are connected.
 */
async function fanout(url: string, headers: (i: number) => Record<string, string>, publish: (slot: number) => void, measured: () => void = () => undefined): Promise<Fanout> {
  const received: Map<number, number>[] = [];
  const sockets: { destroy(): void }[] = [];
  try {
    const connect = (i: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const seen = new Map<number, number>();
        received.push(seen);
        openSnapshotStream(url, headers(i), (slot, at) => {
          seen.set(slot, at);
          if (seen.size === 1) resolve();
        }).then((socket) => sockets.push(socket), reject);
      });
    for (let i = 0; i < CLIENTS; i += CONNECT_BATCH) {
      await Promise.all(Array.from({ length: Math.min(CONNECT_BATCH, CLIENTS - i) }, (_, k) => connect(i + k)));
    }
    measured();
    const base = sampleSnapshot();
    const published: { slot: number; at: number }[] = [];
    for (let n = 1; n <= SNAPSHOTS; n++) {
      const slot = base.slot + n * 10;
      published.push({ slot, at: performance.now() });
      publish(slot);
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
    return { missed, p99Ms: percentile(delays, 99) };
  } finally {
    for (const s of sockets) s.destroy();
  }
}

/** The baseline server (bare-sse-server.ts) as its own process, like the gateway. */
async function startBareServer(natsUrl: string, subject: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'bare-sse-server.ts')], {
    env: { ...process.env, PORT: String(port), NATS_URL: natsUrl, SUBJECT: subject, INITIAL: JSON.stringify(sampleSnapshot()) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('ready') ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`the bare SSE server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/stream`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * 10,000 concurrent /stream clients on one gateway process: memory per connection, and
 * for snapshots published on NATS, the time until each client has it (p99), every
 * client receiving each snapshot or, coalesced, a newer one. Baseline in the same run: a
 * bare Node http server writing the same frames, on the same trigger, to the same number
 * of sockets (gateway p99 ≤ 2x the bare server's).
 */
const bench: Bench = async () => {
  // The figure is delivery to 10,000 connected clients. The admission caps
  // (STREAMS_PER_KEY 5, STREAMS_PER_ADDRESS 20 by default) would refuse most of them here,
  // where every client shares loopback and 250 keys; they are raised for this process only.
  const gateway = await startGatewayUnderTest(KEYS, { STREAMS_PER_KEY: String(CLIENTS / KEYS), STREAMS_PER_ADDRESS: String(CLIENTS) });
  const logger = createLogger({ service: 'bench', silent: true });
  const bus = await connectBus({ servers: gateway.ns.natsUrl, name: 'bench', logger });
  const names = natsNames(gateway.ns.natsPrefix);
  const publish = (slot: number): void => {
    bus.publish(names.subjects.liveUpdated, new TextEncoder().encode(JSON.stringify({ ...sampleSnapshot(), slot, updatedAt: new Date().toISOString() })));
  };
  let bare: Awaited<ReturnType<typeof startBareServer>> | null = null;
  let gatewayStopped: Promise<void> | null = null;
  const stopGateway = (): Promise<void> => (gatewayStopped ??= gateway.stop());
  try {
    await new Promise((r) => setTimeout(r, 1000));
    // Per connection, not the process's first: the first streams pay one-time costs (code
    // compiled and loaded on first use) that would be spread over the 10,000 as if each paid them.
    {
      const warm: { destroy(): void }[] = [];
      for (let i = 0; i < 50; i++) warm.push(await openSnapshotStream(`${gateway.url}/api/v1/stream`, { Authorization: `Bearer ${gateway.keys[i % KEYS]}` }, () => undefined));
      for (const w of warm) w.destroy();
      await new Promise((r) => setTimeout(r, 1000));
    }
    const before = rssBytes(gateway.pid);
    let after = before;
    const viaGateway = await fanout(`${gateway.url}/api/v1/stream`, (i) => ({ Authorization: `Bearer ${gateway.keys[i % KEYS]}` }), publish, () => {
      after = rssBytes(gateway.pid);
    });
    await stopGateway(); // the bare server gets the machine to itself, as the gateway had
    bare = await startBareServer(gateway.ns.natsUrl, names.subjects.liveUpdated);
    const viaBare = await fanout(bare.url, () => ({}), publish);
    const perConnection = Math.round((after - before) / CLIENTS);
    const ratio = viaGateway.p99Ms / viaBare.p99Ms;
    return [
      { key: 'sse.clients', label: 'concurrent /stream clients', value: CLIENTS, unit: 'clients' },
      { key: 'sse.missed', label: 'snapshot deliveries missed (neither it nor a newer one)', value: viaGateway.missed, unit: 'deliveries', target: '= 0', met: viaGateway.missed === 0 },
      { key: 'sse.deliveryP99Ms', label: 'SSE delivery p99 (NATS publish → client)', value: viaGateway.p99Ms, unit: 'ms', target: '< 250', met: viaGateway.p99Ms < 250 },
      { key: 'sse.baseline.bareP99Ms', label: 'baseline: bare Node http server, same frames and sockets, delivery p99', value: viaBare.p99Ms, unit: 'ms' },
      { key: 'sse.ratioToBare', label: 'SSE delivery p99 ÷ bare server p99', value: ratio, unit: 'ratio', target: '<= 2', met: ratio <= 2 },
      { key: 'sse.bytesPerConnection', label: 'gateway memory per connection', value: perConnection, unit: 'bytes', target: '<= 16384', met: perConnection <= 16_384 },
    ];
  } finally {
    await bare?.stop();
    await bus.drain();
    await stopGateway();
  }
};

export default bench;
