/**
 * Rounds stored out of order against the real parts: the event-log process over
 * PostgreSQL and NATS, the gateway serving /events. The live rounds are stored first,
 * then the older ones in batches, oldest first, with a hole filled last (the indexer's
 * history fill); once all are stored, the log's live events are those of a rebuild
 * (every stored round derived in id order), and every correction is on the wire.
 */
import { isDeepStrictEqual } from 'node:util';
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { connectBus, ensureRoundsStream, type NatsConnection } from '@gridlab/bus';
import { natsNames, type LogEvent, type Round } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { createLogger } from '@gridlab/logger';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { answersOk, createTestDatabase, freePort, runCli, startService, syntheticRounds, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { createDeriver, type DeriverConfig } from '../src/domain/derive';

const SECRET = 'event-log-late-test-secret-0123456789ab';
// Low thresholds so 2000 synthetic rounds give every round kind.
const DERIVER: Partial<DeriverConfig> = { droughtThreshold: 60, bigRoundMultiplier: 1.3, bigRoundWindow: 200, bigRoundMinHistory: 50, milestoneRoundModulus: 500, deployedSolStep: 20_000 };
const ENV = {
  EVENT_DROUGHT_THRESHOLD: '60',
  EVENT_BIG_ROUND_MULTIPLIER: '1.3',
  EVENT_BIG_ROUND_WINDOW: '200',
  EVENT_BIG_ROUND_MIN_HISTORY: '50',
  EVENT_MILESTONE_ROUNDS: '500',
  EVENT_MILESTONE_SOL: '20000',
  EVENT_CHECKPOINT_ROUNDS: '100',
  CATCH_UP_INTERVAL_MS: '200',
  // No history floor here: a missing id is passed over quickly, so later rounds are derived before it arrives.
  GAP_WAIT_MS: '200',
};
const LIVE_FROM = 1500;
const HOLE = { from: 700, to: 760 };

let db: TestDatabase;
let pool: Pool;
let repo: RoundRepository;
let nc: NatsConnection;
let gateway: string;
let apiKey: string;
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
const processes: ServiceProcess[] = [];
const announced: LogEvent[] = [];
const history: Round[] = syntheticRounds(2000, { seed: 4242, firstId: 1, voidedRate: 0.01 });

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { DATABASE_URL: db.url, NATS_PREFIX: ns.natsPrefix, REDIS_PREFIX: ns.redisPrefix, API_KEY_HMAC_SECRET: SECRET, SESSION_SECRET: TEST_SESSION_SECRET, LOG_LEVEL: 'warn', ...ENV, ...extra };
}

interface Occurrence {
  key: string;
  ts: string;
  body: Record<string, unknown>;
}

/** The specification: every stored round derived in id order from the first. */
function rebuild(rounds: readonly Round[]): Occurrence[] {
  const deriver = createDeriver(DERIVER);
  const events = [...rounds].sort((a, b) => a.id - b.id).flatMap((r) => deriver.onRound(r));
  return sortByKey(events.map((e) => ({ key: e.dedupKey, ts: new Date(e.ts).toISOString(), body: { ...e.body } })));
}

async function liveEvents(): Promise<Occurrence[]> {
  const { rows } = await pool.query<{ dedup_key: string; kind: string; ts: Date; body: Record<string, unknown> }>(
    "SELECT dedup_key, kind, ts, body FROM events.events WHERE withdrawn_by IS NULL AND kind <> 'withdrawn'",
  );
  return sortByKey(rows.map((r) => ({ key: r.dedup_key, ts: r.ts.toISOString(), body: { kind: r.kind, ...r.body } })));
}

async function allEvents(): Promise<{ id: number; kind: string; withdrawn_by: number | null; body: Record<string, unknown> }[]> {
  return (await pool.query('SELECT id::int, kind, withdrawn_by::int, body FROM events.events ORDER BY id')).rows;
}

const sortByKey = (events: Occurrence[]): Occurrence[] => events.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const watermark = async (): Promise<number> => Number((await pool.query('SELECT round_id FROM events.progress')).rows[0].round_id);
const get = async <T>(path: string): Promise<T> => (await fetch(`${gateway}/api/v1${path}`, { headers: { Authorization: `Bearer ${apiKey}` } })).json() as Promise<T>;

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR });
  pool = createPool(db.url);
  repo = new RoundRepository(pool);
  nc = await connectBus({ servers: ns.natsUrl, name: 'event-log-late-test', logger: createLogger({ service: 'test', silent: true }) });
  await ensureRoundsStream(nc, names);
  nc.subscribe(names.subjects.eventAppended, { callback: (_err, msg) => {
      announced.push(JSON.parse(new TextDecoder().decode(msg.data)) as LogEvent);
    },
  });
  const port = await freePort();
  gateway = `http://127.0.0.1:${port}`;
  processes.push(await startService('services/api-gateway/src/main.ts', env({ PORT: String(port) }), () => answersOk(`${gateway}/healthz`)));
  const granted = await runCli(['admin', 'grant', '--owner', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', '--days', '1'], env());
  apiKey = (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
  const opsPort = await freePort();
  processes.push(await startService('services/event-log/src/main.ts', env({ OPS_PORT: String(opsPort) }), () => answersOk(`http://127.0.0.1:${opsPort}/healthz`)));
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await nc.drain();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('rounds stored out of order', () => {
  it('ends with the events of a rebuild from the stored rounds, newest stored first', async () => {
    // The live rounds, derived on their own first.
    await repo.insertMany(history.slice(LIVE_FROM));
    await until(async () => (await watermark()) === 2000);
    expect(await liveEvents()).toEqual(rebuild(history.slice(LIVE_FROM)));
    // The history fill: oldest first, in batches, one hole left for later.
    const older = history.slice(0, LIVE_FROM).filter((r) => r.id < HOLE.from || r.id > HOLE.to);
    for (let from = 0; from < older.length; from += 250) {
      await repo.insertMany(older.slice(from, from + 250));
      await new Promise((r) => setTimeout(r, 150));
    }
    await repo.insertMany(history.filter((r) => r.id >= HOLE.from && r.id <= HOLE.to));
    const expected = rebuild(history);
    for (const kind of ['drought_broken', 'big_round', 'streak', 'milestone']) expect(expected.some((e) => e.body['kind'] === kind)).toBe(true);
    await until(async () => (await watermark()) === 2000 && isDeepStrictEqual(await liveEvents(), expected)).catch(() => undefined);
    expect(await liveEvents()).toEqual(expected);
  });

  it('keeps ids gap-free and shows every correction to readers', async () => {
    const all = await allEvents();
    expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i + 1));
    const withdrawals = all.filter((e) => e.kind === 'withdrawn');
    // The live rounds alone gave events the full history does not (droughts counted from round 1500).
    expect(withdrawals.length).toBeGreaterThan(0);
    for (const w of withdrawals) {
      const target = all[(w.body['eventId'] as number) - 1]!;
      expect([target.withdrawn_by, target.kind, target.body['roundId']]).toEqual([w.id, w.body['eventKind'], w.body['roundId']]);
    }
    expect(all.filter((e) => e.withdrawn_by !== null)).toHaveLength(withdrawals.length);
    // A reader of one kind sees its kind's withdrawals too.
    const droughts = await get<{ events: LogEvent[] }>('/events?kind=drought_broken&limit=1000');
    const expectedIds = all.filter((e) => e.kind === 'drought_broken' || (e.kind === 'withdrawn' && e.body['eventKind'] === 'drought_broken')).map((e) => e.id);
    expect(droughts.events.map((e) => e.id)).toEqual(expectedIds);
    expect(droughts.events.some((e) => e.kind === 'withdrawn')).toBe(true);
    // NATS subscribers were told of every event, corrections included, in id order.
    await until(async () => announced.length >= all.length, 10_000);
    expect(announced.map((e) => e.id)).toEqual(all.map((e) => e.id));
  });

  it('appends nothing more when restarted over the complete history', async () => {
    const before = await allEvents();
    await processes[1]!.stop();
    const opsPort = await freePort();
    processes[1] = await startService('services/event-log/src/main.ts', env({ OPS_PORT: String(opsPort) }), () => answersOk(`http://127.0.0.1:${opsPort}/healthz`));
    await new Promise((r) => setTimeout(r, 1500));
    expect(await allEvents()).toEqual(before);
  });
});
