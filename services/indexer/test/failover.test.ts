import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { decodeMessage, connectBus } from '@gridlab/bus';
import { eventValidator } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { jetstreamManager } from '@nats-io/jetstream';
import { harness, waitFor, waitForStored, type Harness } from './harness';

const validateRound = eventValidator('roundSettled');

const ROOT = join(__dirname, '..', '..', '..');
let h: Harness;
const children: ChildProcess[] = [];

beforeAll(async () => {
  h = await harness(20);
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await h.close();
});

function spawnIndexer(opsPort: number): ChildProcess {
  // `node --import tsx` runs the service in this one process, so SIGKILL really kills it
  // (the tsx CLI would run it in a child that outlives the signal).
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'services/indexer/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: h.settings.databaseUrl,
      NATS_URL: h.settings.natsUrl,
      NATS_PREFIX: h.settings.natsPrefix,
      SOLANA_RPC_URL: h.settings.rpcUrl,
      SOLANA_WS_URL: h.settings.wsUrl,
      ORE_PROGRAM_ID: h.settings.programId,
      POLL_INTERVAL_MS: '200',
      OPS_PORT: String(opsPort),
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

async function role(port: number): Promise<string | null> {
  try {
    const body = (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { checks: { role?: { role?: string } } };
    return body.checks.role?.role ?? null;
  } catch {
    return null;
  }
}

describe('leader failover', () => {
  it('a standby takes over when the leader is killed, with no round lost or doubled', async () => {
    const ports = [19000 + Math.floor(Math.random() * 1000), 20000 + Math.floor(Math.random() * 1000)];
    const procs = [spawnIndexer(ports[0]!), spawnIndexer(ports[1]!)];
    // Both up, and one has checked the chain's identity and taken the lock.
    await waitFor(async () => {
      const roles = await Promise.all(ports.map(role));
      return roles.every((r) => r !== null) && roles.includes('leader');
    }, 60_000, 'both indexers up, one leading');
    const roles = await Promise.all(ports.map(role));
    expect([...roles].sort()).toEqual(['leader', 'standby']);
    const leader = roles.indexOf('leader');
    await waitForStored(h, h.devnet.currentRoundId() - 1);

    procs[leader]!.kill('SIGKILL');
    const standbyPort = ports[1 - leader]!;
    await waitFor(async () => (await role(standbyPort)) === 'leader', 20_000, 'standby promoted');
    const target = h.devnet.currentRoundId() + 10;
    await waitForStored(h, target);

    const stored = await h.repo.getRounds({ fromId: 1, toId: target });
    expect(stored.map((r) => r.id)).toEqual(Array.from({ length: target }, (_, i) => i + 1));
    const bus = await connectBus({ servers: h.ns.natsUrl, name: 't', logger: createLogger({ service: 't', silent: true }) });
    const jsm = await jetstreamManager(bus);
    const info = await jsm.streams.info(h.names.streams.rounds);
    const seen = new Map<number, number>();
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(h.names.streams.rounds, { seq });
      if (m?.subject === h.names.subjects.roundSettled) {
        const id = decodeMessage(validateRound, m.data).id;
        seen.set(id, (seen.get(id) ?? 0) + 1);
      }
    }
    await bus.drain();
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    for (let id = 1; id <= target; id++) expect(seen.get(id)).toBe(1);
    procs[1 - leader]!.kill('SIGTERM');
    await new Promise((resolve) => procs[1 - leader]!.once('exit', resolve));
    expect(procs[1 - leader]!.exitCode).toBe(0);
  });
});
