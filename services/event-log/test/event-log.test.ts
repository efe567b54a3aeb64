/**
 * The event log over real parts: the event-log process deriving from rounds in
 * PostgreSQL and billing's facts, announced on NATS JetStream; a gateway process serving
 * /events and /events/stream.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { connectBus, ensureRoundsStream, encodeMessage, jetStreamOf, publishDurable, type NatsConnection } from '@gridlab/bus';
import { eventValidator, natsNames, type LogEvent, type Round } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { createLogger } from '@gridlab/logger';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import {
  ackedThrough,
  answersOk,
  createTestDatabase,
  freePort,
  runCli,
  startService,
  syntheticRounds,
  testNamespace,
  type ServiceProcess,
  type TestDatabase,
  TEST_SESSION_SECRET,
} from '@gridlab/testing';
import { createDeriver, type DeriverConfig } from '../src/domain/derive';

const validateRound = eventValidator('roundSettled');

const SECRET = 'event-log-test-secret-0123456789abcdef';
// Low thresholds so a few thousand synthetic rounds produce every round kind.
const DERIVER: Partial<DeriverConfig> = { droughtThreshold: 60, bigRoundMultiplier: 1.3, bigRoundWindow: 200, bigRoundMinHistory: 50, milestoneRoundModulus: 500, deployedSolStep: 20_000 };
const ENV = {
  EVENT_DROUGHT_THRESHOLD: '60',
  EVENT_BIG_ROUND_MULTIPLIER: '1.3',
  EVENT_BIG_ROUND_WINDOW: '200',
  EVENT_BIG_ROUND_MIN_HISTORY: '50',
  EVENT_MILESTONE_ROUNDS: '500',
  EVENT_MILESTONE_SOL: '20000',
  CATCH_UP_INTERVAL_MS: '300',
  GAP_WAIT_MS: '1000',
};

let db: TestDatabase;
let pool: Pool;
let repo: RoundRepository;
let nc: NatsConnection;
let gateway: string;
let apiKey: string;
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
let writer: ServiceProcess | undefined;
const processes: ServiceProcess[] = [];
const history: Round[] = syntheticRounds(6000, { seed: 77, firstId: 1, voidedRate: 0.01 });

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { DATABASE_URL: db.url, NATS_PREFIX: ns.natsPrefix, REDIS_PREFIX: ns.redisPrefix, API_KEY_HMAC_SECRET: SECRET, SESSION_SECRET: TEST_SESSION_SECRET, LOG_LEVEL: process.env['GRIDLAB_TEST_SERVICE_LOGS'] === '1' ? 'info' : 'warn', ...ENV, ...extra };
}

async function startWriter(): Promise<ServiceProcess> {
  const port = await freePort();
  const p = await startService('services/event-log/src/main.ts', env({ OPS_PORT: String(port) }), () => answersOk(`http://127.0.0.1:${port}/healthz`));
  processes.push(p);
  return p;
}

/** Every event the pure deriver gives for these rounds, as the log should hold them. */
function expectedRoundEvents(rounds: readonly Round[]): { key: string; kind: string }[] {
  const deriver = createDeriver(DERIVER);
  return rounds.flatMap((r) => deriver.onRound(r)).map((e) => ({ key: e.dedupKey, kind: e.body.kind }));
}

async function storedEvents(): Promise<{ id: number; dedup_key: string; kind: string }[]> {
  return (await pool.query('SELECT id, dedup_key, kind FROM events.events ORDER BY id')).rows;
}

async function watermark(): Promise<number> {
  return Number((await pool.query('SELECT round_id FROM events.progress')).rows[0].round_id);
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const get = (path: string) => fetch(`${gateway}/api/v1${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR });
  pool = createPool(db.url);
  repo = new RoundRepository(pool);
  nc = await connectBus({ servers: ns.natsUrl, name: 'event-log-test', logger: createLogger({ service: 'test', silent: true }) });
  await ensureRoundsStream(nc, names);
  const port = await freePort();
  gateway = `http://127.0.0.1:${port}`;
  processes.push(await startService('services/api-gateway/src/main.ts', env({ PORT: String(port) }), () => answersOk(`${gateway}/healthz`)));
  const granted = await runCli(['admin', 'grant', '--owner', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', '--days', '1'], env());
  apiKey = (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await nc.drain();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('the event-log writer', () => {
  it('derives exactly the events of the stored history, once, in order', async () => {
    await repo.insertMany(history.slice(0, 3000));
    writer = await startWriter();
    await until(async () => (await watermark()) === 3000);
    const stored = await storedEvents();
    expect(stored.map((e) => ({ key: e.dedup_key, kind: e.kind }))).toEqual(expectedRoundEvents(history.slice(0, 3000)));
    expect(stored.map((e) => e.id)).toEqual(stored.map((_, i) => i + 1));
    for (const kind of ['drought_broken', 'big_round', 'milestone']) expect(stored.some((e) => e.kind === kind)).toBe(true);
  });

  it('appends nothing when the same rounds are announced again', async () => {
    const before = await storedEvents();
    const js = jetStreamOf(nc);
    let lastSeq = 0;
    for (const round of history.slice(2990, 3000)) {
      lastSeq = (await publishDurable(js, names.subjects.roundSettled, encodeMessage(validateRound, round), `replay-${round.id}-${Date.now()}`)).seq;
    }
    // The writer acknowledges a wake-up after the catch-up it caused: every replay handled.
    await until(async () => (await ackedThrough(nc, names.streams.rounds, names.durables.eventLogRounds)) >= lastSeq);
    expect(await storedEvents()).toEqual(before);
  });

  it('loses and duplicates nothing when killed mid-run and restarted', async () => {
    const insert = (async () => {
      for (let from = 3000; from < 5000; from += 100) {
        await repo.insertMany(history.slice(from, from + 100));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await until(async () => (await watermark()) > 3200);
    await writer!.stop('SIGKILL');
    await insert;
    writer = await startWriter();
    await until(async () => (await watermark()) === 5000);
    const stored = await storedEvents();
    expect(stored.map((e) => ({ key: e.dedup_key, kind: e.kind }))).toEqual(expectedRoundEvents(history.slice(0, 5000)));
    expect(stored.map((e) => e.id)).toEqual(stored.map((_, i) => i + 1));
  });

  it('turns billing facts into subscription and tier events', async () => {
    const ts = '2026-11-23T10:00:00.000Z';
    const insertFact = (factId: string, kind: string, payload: object) =>
      pool.query('INSERT INTO billing.facts (fact_id, kind, payload, created_at) VALUES ($1, $2, $3, $4)', [factId, kind, JSON.stringify({ factId, ...payload, ts }), ts]);
    await insertFact('payment:abc', 'subscription', { action: 'activated', plan: 'monthly', subscriberId: 'sub_1111111111111111111111', paidUntil: ts, activeSubs: 100 });
    await insertFact('tier:1', 'tier', { activeSubs: 100, tokenNow: 0.2, direction: 'up' });
    await until(async () => (await storedEvents()).some((e) => e.kind === 'tier'));
    const res = await get('/events?kind=subscription');
    const body = (await res.json()) as { events: LogEvent[] };
    expect(body.events).toEqual([{ id: expect.any(Number), ts, kind: 'subscription', action: 'activated', plan: 'monthly', activeSubs: 100 }]);
    const tier = (await (await get('/events?kind=tier')).json()) as { events: LogEvent[] };
    expect(tier.events).toEqual([{ id: expect.any(Number), ts, kind: 'tier', activeSubs: 100, tokenNow: 0.2, direction: 'up' }]);
  });
});

describe('GET /events', () => {
  it('returns each event exactly once when walked with the cursor', async () => {
    const all = await storedEvents();
    const seen: number[] = [];
    let since = 0;
    for (;;) {
      const res = await get(`/events?since=${since}&limit=37`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { count: number; lastId: number; events: LogEvent[] };
      expect(body.count).toBe(body.events.length);
      if (body.count === 0) {
        expect(body.lastId).toBe(since);
        break;
      }
      seen.push(...body.events.map((e) => e.id));
      since = body.lastId;
    }
    expect(seen).toEqual(all.map((e) => e.id));
  });

  it('filters by kind, streak included', async () => {
    for (const kind of ['drought_broken', 'big_round', 'milestone', 'streak', 'subscription', 'tier']) {
      const body = (await (await get(`/events?kind=${kind}&limit=1000`)).json()) as { events: LogEvent[] };
      const expected = (await storedEvents()).filter((e) => e.kind === kind).map((e) => e.id).slice(0, 1000);
      expect([kind, body.events.map((e) => e.id)]).toEqual([kind, expected]);
      for (const e of body.events) expect(e.kind).toBe(kind);
    }
  });

  it('answers 400 for every bad parameter', async () => {
    for (const query of ['since=-1', 'since=abc', 'since=1.5', 'limit=0', 'limit=1001', 'limit=x', 'kind=weather', 'kind=streak&kind=tier']) {
      const res = await get(`/events?${query}`);
      expect([query, res.status, ((await res.json()) as { code: string }).code]).toEqual([query, 400, 'invalid_request']);
    }
    for (const query of ['since=-1', 'kind=weather']) expect((await get(`/events/stream?${query}`)).status).toBe(400);
    const res = await fetch(`${gateway}/api/v1/events/stream`, { headers: { Authorization: `Bearer ${apiKey}`, 'Last-Event-ID': 'abc' } });
    expect(res.status).toBe(400);
  });
});

/** Reads SSE frames from a response until `stop` says enough. */
async function readEvents(res: Response, stop: (events: LogEvent[]) => boolean, timeoutMs = 30_000): Promise<{ events: LogEvent[]; ids: string[] }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: LogEvent[] = [];
  const ids: string[] = [];
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  while (!stop(events)) {
    if (Date.now() > deadline) throw new Error(`stream stalled after ${events.length} events`);
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const kind = /^event: (.*)$/m.exec(frame)?.[1];
      if (data === undefined) continue;
      const event = JSON.parse(data) as LogEvent;
      expect([id, kind]).toEqual([String(event.id), event.kind]);
      events.push(event);
      ids.push(id!);
    }
  }
  await reader.cancel();
  return { events, ids };
}

describe('GET /events/stream', () => {
  it('replays the last 50, then after a cursor or Last-Event-ID', async () => {
    const all = await storedEvents();
    const last50 = await readEvents(await get('/events/stream'), (e) => e.length >= 50);
    expect(last50.events.map((e) => e.id)).toEqual(all.slice(-50).map((e) => e.id));
    const after = all[all.length - 10]!.id;
    const fromCursor = await readEvents(await get(`/events/stream?since=${after}`), (e) => e.length >= 9);
    expect(fromCursor.events.map((e) => e.id)).toEqual(all.slice(-9).map((e) => e.id));
    const res = await fetch(`${gateway}/api/v1/events/stream`, { headers: { Authorization: `Bearer ${apiKey}`, 'Last-Event-ID': String(after) } });
    expect((await readEvents(res, (e) => e.length >= 9)).events.map((e) => e.id)).toEqual(all.slice(-9).map((e) => e.id));
  });

  it('delivers every event once, in order, to a client connected across a burst of appends', async () => {
    const start = (await storedEvents()).length;
    const firstStream = await get(`/events/stream?since=${start - 5}`);
    const streakOnly = await get(`/events/stream?since=0&kind=streak`);
    const insert = (async () => {
      for (let from = 5000; from < 6000; from += 50) await repo.insertMany(history.slice(from, from + 50));
    })();
    const expectedAll = expectedRoundEvents(history).length + 2; // + the two billing facts
    const received = readEvents(firstStream, (e) => e.length >= expectedAll - (start - 5));
    await insert;
    await until(async () => (await watermark()) === 6000);
    const all = await storedEvents();
    expect(all).toHaveLength(expectedAll);
    const { events } = await received;
    expect(events.map((e) => e.id)).toEqual(all.slice(start - 5).map((e) => e.id));
    const streaks = all.filter((e) => e.kind === 'streak');
    const streakEvents = await readEvents(streakOnly, (e) => e.length >= streaks.length);
    expect(streakEvents.events.map((e) => e.id)).toEqual(streaks.map((e) => e.id));
  });
});
