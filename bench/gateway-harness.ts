import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { KeyStore, BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { connectBus, openLiveBucket } from '@gridlab/bus';
import { boardEv, distributionMask } from '@gridlab/chain';
import { eventValidator, natsNames, type LiveSnapshot } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { createTestDatabase, testNamespace, type TestDatabase, type TestNamespace, TEST_SESSION_SECRET } from '@gridlab/testing';

const validateLiveSnapshot = eventValidator('liveUpdated');

const ROOT = join(__dirname, '..');
const SECRET = 'bench-secret-0123456789abcdef0123456789';

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A realistic snapshot (the same shape and size the indexer publishes). */
export function sampleSnapshot(): LiveSnapshot {
  const squares = (base: number) => Array.from({ length: 25 }, (_, i) => base + i * 7919);
  const deployed = squares(412_000_000);
  const mask = distributionMask(123456);
  const evs = boardEv({ deployed, payoutRule: 'returns', oreReward: 100_000_000_000, motherlodePool: 230_000_000_000_000 }, 100_000_000, 312_000_000);
  return validateLiveSnapshot({
    roundId: 123456,
    status: 'active',
    deployed,
    count: squares(14).map((c) => c % 60),
    totalDeployed: 15_123_456_789,
    totalMiners: 412,
    secondsLeft: 21.6,
    slot: 250_001_234,
    startSlot: 250_001_100,
    endSlot: 250_001_250,
    prevRound: {
      id: 123455,
      deployed: squares(398_000_000),
      count: squares(12).map((c) => c % 60),
      winningSquare: 17,
      totalDeployed: 14_987_654_321,
      totalWinnings: 12_345_678_901,
      totalVaulted: 1_234_567_890,
      totalMiners: 397,
      motherlode: 0,
      topMinerReward: 100_000_000_000,
      slotHash: 'ab'.repeat(32),
      settledAt: '2026-11-22T06:11:10.123Z',
      // A round as the program settles them today.
      payoutRule: 'returns',
      oreReward: 100_000_000_000,
      topMiner: 'SpLiT11111111111111111111111111111111111112',
      split: true,
      productionCost: 312_000_000,
      source: 'account',
      motherlodePool: 229_800_000_000_000,
    },
    updatedAt: '2026-11-22T06:11:31.456Z',
    game: {
      payoutRule: 'returns',
      oreReward: 100_000_000_000,
      motherlodePool: 230_000_000_000_000,
      productionCost: 312_000_000,
      splitSquares: Array.from({ length: 25 }, (_, s) => (mask & (1 << s)) === 0),
      evStakeLamports: 100_000_000,
      evOrePriceLamports: 312_000_000,
      evPerSol: evs.map((e) => Math.round(e.evPerSol * 1e6) / 1e6),
    },
  });
}

/** A gateway process on its own database, namespace and Redis prefix, with keys to use. */
export interface GatewayUnderTest {
  readonly url: string;
  /** The gateway process id (for memory readings). */
  readonly pid: number;
  readonly keys: string[];
  readonly db: TestDatabase;
  readonly ns: TestNamespace;
  readonly pool: Pool;
  stop(): Promise<void>;
}

export async function startGatewayUnderTest(
  keyCount: number,
  extraEnv: Record<string, string> = {},
  seedSnapshot = true,
): Promise<GatewayUnderTest> {
  const db = await createTestDatabase();
  const ns = testNamespace();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR });
  const pool = createPool(db.url);
  const store = new KeyStore(pool, SECRET);
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i++) {
    const owner = Buffer.alloc(32, 0);
    owner.writeUInt32BE(i + 1, 28);
    keys.push((await store.grant((await import('bs58')).default.encode(owner), 1, new Date())).apiKey);
  }
  const nc = await connectBus({ servers: ns.natsUrl, name: 'bench', logger: createLogger({ service: 'bench', silent: true }) });
  const names = natsNames(ns.natsPrefix);
  const kv = await openLiveBucket(nc, names);
  if (seedSnapshot) await kv.put(names.liveKey, new TextEncoder().encode(JSON.stringify(sampleSnapshot())));
  await nc.drain();
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...(process.env['GATEWAY_NODE_ARGS'] ?? '').split(' ').filter(Boolean), '--import', 'tsx', join(ROOT, 'services/api-gateway/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, NATS_PREFIX: ns.natsPrefix, REDIS_PREFIX: ns.redisPrefix, API_KEY_HMAC_SECRET: SECRET, SESSION_SECRET: TEST_SESSION_SECRET, PORT: String(port), LOG_LEVEL: 'warn', ...extraEnv },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      if (i > 300) throw new Error('gateway did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    keys,
    db,
    ns,
    pool,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
      await pool.end();
      await db.drop();
      await ns.cleanup();
    },
  };
}
