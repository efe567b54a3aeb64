/**
 * The Strategy Lab's backtest and analytics over real parts: lab-backtest processes
 * loading history from PostgreSQL and following settled rounds on NATS JetStream, a
 * gateway process answering HTTP, Redis holding the analytics cache.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { connectBus, encodeMessage, ensureRoundsStream, jetStreamOf, publishDurable, requestChunked, type NatsConnection } from '@gridlab/bus';
import { CHUNKS_HEADER, commandValidators, eventValidator, isDateTime, natsNames, type KnownRound } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';

const validateRound = eventValidator('roundSettled');
const validateBacktestResult = commandValidators('labBacktest').result;
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { History, PAYOUT_REVISION, analyze, backtest, dslHash, normalizeDsl, type BacktestWindow } from '@gridlab/strategy';
import {
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
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';

const SECRET = 'lab-backtest-test-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const FIRST_ID = 1001;
/** More than 200,000 rounds, so an explicit window can exceed the limit. */
const STORED = 210_000;
const MIB = 1024 * 1024;

let db: TestDatabase;
let pool: Pool;
let repo: RoundRepository;
let nc: NatsConnection;
let redis: Redis;
let gateway: string;
let apiKey: string;
let lab: { process: ServiceProcess; ops: string };
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
const processes: ServiceProcess[] = [];
/** Stored rounds span the eras: parimutuel, then `returns` from this index on (as on chain since 2026-08-12). */
const CUTOVER = 55_000;
const rounds: KnownRound[] = syntheticRounds(STORED, { seed: 31, firstId: FIRST_ID, voidedRate: 0.01, payoutRule: (i) => (i < CUTOVER ? 'parimutuel' : 'returns') });
const lastId = FIRST_ID + STORED - 1;
/** Every round stored so far, ascending (what the service's history must equal). */
let stored: KnownRound[] = rounds;
let engineHistory: History;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: db.url,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: process.env['GRIDLAB_TEST_SERVICE_LOGS'] === '1' ? 'info' : 'warn',
    ...extra,
  };
}

async function startLab(): Promise<{ process: ServiceProcess; ops: string }> {
  const port = await freePort();
  const ops = `http://127.0.0.1:${port}`;
  // The catch-up timer is effectively off: what extends the history here is the NATS announcement.
  const p = await startService('services/lab-backtest/src/main.ts', env({ OPS_PORT: String(port), LAB_WORKERS: '2', CATCH_UP_INTERVAL_MS: '600000' }), () =>
    answersOk(`${ops}/readyz`),
  );
  processes.push(p);
  return { process: p, ops };
}

async function startGateway(extra: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  processes.push(await startService('services/api-gateway/src/main.ts', env({ PORT: String(port), ...extra }), () => answersOk(`${url}/healthz`)));
  return url;
}

async function post(path: string, body: unknown, base = gateway) {
  const res = await fetch(`${base}/api/v1/lab/${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Record<string, any> };
}

/** What the wire carries for a value (JSON has no -0 and no undefined). */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const expectedBacktest = (dsl: unknown, window: BacktestWindow = {}) => backtest(engineHistory, normalizeDsl(dsl), window);

/**
 * The body equals `expected` on the wire. Compared as JSON text first (deep equality of
 * 200,000-element arrays is slow), then structurally for a readable difference.
 */
function expectBody(text: string, expected: unknown): void {
  if (text !== JSON.stringify(expected)) expect(JSON.parse(text)).toEqual(wire(expected));
}

async function metric(ops: string, line: RegExp): Promise<number> {
  const text = await (await fetch(`${ops}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => line.test(l))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

async function until<T>(attempt: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Stores rounds (as the indexer does) and, when asked, announces the last one on JetStream. */
async function settle(newRounds: KnownRound[], announce: boolean): Promise<void> {
  await repo.insertMany(newRounds);
  const appended = newRounds.every((r) => r.id > stored[stored.length - 1]!.id);
  stored = [...stored, ...newRounds].sort((a, b) => a.id - b.id);
  if (appended) engineHistory.appendMany(newRounds);
  else engineHistory = History.from(stored);
  if (announce) {
    const last = newRounds[newRounds.length - 1]!;
    await publishDurable(jetStreamOf(nc), names.subjects.roundSettled, encodeMessage(validateRound, last), String(last.id));
  }
}

/** Validates a real response body against a schema of the gateway's OpenAPI document. */
const openapi = (() => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  const document = parse(readFileSync(join(__dirname, '..', '..', 'api-gateway', 'openapi', 'openapi.yaml'), 'utf8')) as Record<string, unknown>;
  ajv.addSchema({ ...document, $id: 'openapi' });
  return (schema: string, body: unknown): void => {
    const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`)!;
    if (!validate(body)) throw new Error(`${schema}: ${ajv.errorsText(validate.errors)}`);
  };
})();

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  pool = createPool(db.url);
  repo = new RoundRepository(pool);
  for (let i = 0; i < rounds.length; i += 50_000) await repo.insertMany(rounds.slice(i, i + 50_000));
  engineHistory = History.from(rounds);
  nc = await connectBus({ servers: ns.natsUrl, name: 'lab-backtest-test', logger: createLogger({ service: 'test', silent: true }) });
  await ensureRoundsStream(nc, names);
  redis = new Redis(ns.redisUrl);
  [lab, gateway] = await Promise.all([startLab(), startGateway()]);
  const granted = await runCli(['admin', 'grant', '--owner', OWNER, '--days', '1'], env());
  if (granted.code !== 0) throw new Error(`admin grant failed: ${granted.stderr}`);
  apiKey = (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await nc?.drain();
  await redis?.quit();
  await pool?.end();
  await db?.drop();
  await ns.cleanup();
});

describe('POST /api/v1/lab/backtest', () => {
  it("equals the engine's own backtest of the stored rounds, in the documented shape", async () => {
    const dsl = { base_strategy: 'hot', params: { bet_size_lamports: 1_000_000, num_squares: 3, sizing_mode: 'fibonacci' } };
    const window = { fromRoundId: FIRST_ID + 50_000, toRoundId: FIRST_ID + 60_000 };
    const res = await post('backtest', { dsl, ...window });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('60');
    openapi('BacktestResponse', res.body);
    expectBody(res.text, { result: expectedBacktest(dsl, window) });
    expect(res.body['result'].perRoundPnlLamports).toHaveLength(res.body['result'].totalRounds);
    // The window spans the cutover: its returns rounds were priced with their ORE (read from the table).
    expect(BigInt(res.body['result'].oreEarned)).toBeGreaterThan(0n);
    expect(res.body['result'].solReturnedNetLamports).toBeLessThan(res.body['result'].netProfitLamports);
  });

  it('delivers a result larger than NATS’ 1 MiB max payload intact, in chunks', async () => {
    // The largest window (exactly 200,000 stored rounds) and large stakes: long per-round numbers.
    const dsl = { base_strategy: 'all_25', params: { bet_size_lamports: 100_000_000, max_bet_per_square_lamports: 100_000_000 } };
    const window = { fromRoundId: FIRST_ID, toRoundId: FIRST_ID + 199_999 };
    const res = await post('backtest', { dsl, ...window });
    expect(res.status).toBe(200);
    expect(res.text.length).toBeGreaterThan(2 * MIB);
    expectBody(res.text, { result: expectedBacktest(dsl, window) });
    const direct = await requestChunked(nc, names.commands.labBacktest, { dsl, ...window }, validateBacktestResult, { timeoutMs: 30_000 });
    expect(Number(direct.headers?.get(CHUNKS_HEADER))).toBeGreaterThanOrEqual(3);
    expectBody(JSON.stringify({ result: direct.result }), JSON.parse(res.text));
  });

  it('answers 400 naming each JSON path of a bad DSL, and a window it cannot serve', async () => {
    const bad = await post('backtest', { dsl: { base_strategy: 'coldest', params: { bet_size_lamports: 'many' }, extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(bad.body).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(bad.body['errors'].map((e: { path: string }) => e.path).sort()).toEqual(['/dsl/base_strategy', '/dsl/extra', '/dsl/params/bet_size_lamports']);
    openapi('Problem', bad.body);

    const notObject = await post('backtest', { dsl: 'cold' });
    expect([notObject.status, notObject.body['errors']]).toEqual([400, [{ path: '/dsl', message: 'must be object' }]]);

    const dsl = { base_strategy: 'cold', params: { bet_size_lamports: 1000 } };
    const reversed = await post('backtest', { dsl, fromRoundId: FIRST_ID + 10, toRoundId: FIRST_ID });
    expect([reversed.status, reversed.body['errors'][0].path]).toEqual([400, '/fromRoundId']);
    const empty = await post('backtest', { dsl, fromRoundId: lastId + 1_000_000 });
    expect([empty.status, empty.body['detail']]).toEqual([400, expect.stringMatching(/no stored round/)]);
  });

  it('answers 400 for an explicit window of more than 200,000 stored rounds', async () => {
    const res = await post('backtest', { dsl: { base_strategy: 'corners', params: { bet_size_lamports: 1000 } }, fromRoundId: FIRST_ID, toRoundId: FIRST_ID + 200_000 });
    expect(res.status).toBe(400);
    expect(res.body['errors']).toEqual([{ path: '/fromRoundId', message: 'the window holds 200001 stored rounds, more than 200000' }]);
  });
});

describe('POST /api/v1/lab/analytics', () => {
  const dsl = { base_strategy: 'cold', params: { bet_size_lamports: 2_000_000, num_squares: 4 } };

  it("equals the engine's own analytics; the second call is served from the Redis cache", async () => {
    const first = await post('analytics', { dsl });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('miss');
    openapi('AnalyticsResponse', first.body);
    expectBody(first.text, { analytics: analyze(engineHistory, normalizeDsl(dsl)) });
    expect(first.body['analytics'].asOfRoundId).toBe(lastId);

    // Keyed by the payout arithmetic's revision: a result priced by another is never served.
    const key = `${ns.redisPrefix}lab:analytics:${PAYOUT_REVISION}:${dslHash(normalizeDsl(dsl))}:${Math.floor(lastId / 100)}`;
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);

    const second = await post('analytics', { dsl: { ...dsl, params: { ...dsl.params, sizing_mode: 'flat' } } });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(second.text).toBe(first.text);
    expect(await metric(lab.ops, /^lab_requests_total\{.*kind="analytics".*cache="hit"/)).toBe(1);
  });

  it('keeps answering from the cache while a worker computes a long analysis', async () => {
    const heavy = { base_strategy: 'top_hit_rate', params: { bet_size_lamports: 1_000_000, hit_rate_lookback: 20_000 }, filters: [{ metric: 'total_deployed_pctile', op: '<', value: 95 }] };
    let heavyDone = false;
    const running = post('analytics', { dsl: heavy }).then((r) => {
      heavyDone = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    const started = performance.now();
    const cached = await post('analytics', { dsl });
    const ms = performance.now() - started;
    expect([cached.status, cached.headers.get('x-cache')]).toEqual([200, 'hit']);
    expect(heavyDone).toBe(false);
    expect(ms).toBeLessThan(1000);
    expect((await running).status).toBe(200);
  });

  it('answers 400 naming the JSON path of a bad DSL', async () => {
    const res = await post('analytics', { dsl: { base_strategy: 'custom_squares', params: { bet_size_lamports: 5 } } });
    expect([res.status, res.body['errors']]).toEqual([400, [{ path: '/dsl/params/custom_squares', message: 'is required for base_strategy custom_squares' }]]);
  });
});

describe('replicas and history', () => {
  it('shares requests between replicas of the queue group', async () => {
    const second = await startLab();
    const dsl = { base_strategy: 'checkerboard', params: { bet_size_lamports: 1000 } };
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        requestChunked(nc, names.commands.labBacktest, { dsl, fromRoundId: FIRST_ID + i * 1000, toRoundId: FIRST_ID + i * 1000 + 999 }, validateBacktestResult, { timeoutMs: 30_000 }),
      ),
    );
    const answered = /^lab_requests_total\{.*kind="backtest".*outcome="ok"/;
    expect(await metric(second.ops, answered)).toBeGreaterThan(0);
    expect(await metric(second.ops, answered) + (await metric(lab.ops, answered))).toBeGreaterThanOrEqual(24);
    await second.process.stop();
  });

  it('extends its history from settled rounds; a lost announcement loses nothing', async () => {
    const [lost, announced] = syntheticRounds(2, { seed: 99, firstId: lastId + 1, payoutRule: 'returns' });
    await settle([lost!], false);
    await settle([announced!], true);
    const dsl = { base_strategy: 'recent_winners', params: { bet_size_lamports: 50_000, num_squares: 2 } };
    const window = { fromRoundId: lastId - 998, toRoundId: announced!.id };
    const res = await until(async () => {
      const r = await post('backtest', { dsl, ...window });
      return r.status === 200 && r.body['result'].rangeMax === announced!.id ? r : undefined;
    });
    expectBody(res.text, { result: expectedBacktest(dsl, window) });
  });

  it('rebuilds its history when older rounds are stored after it loaded', async () => {
    const older = syntheticRounds(1000, { seed: 5, firstId: 1 });
    await settle(older, false);
    const [next] = syntheticRounds(1, { seed: 100, firstId: stored[stored.length - 1]!.id + 1 });
    await settle([next!], true);
    const dsl = { base_strategy: 'drought', params: { bet_size_lamports: 10_000, drought_threshold: 20 } };
    const window = { fromRoundId: 1, toRoundId: 1000 };
    const res = await until(async () => {
      const r = await post('backtest', { dsl, ...window });
      return r.status === 200 ? r : undefined;
    });
    expectBody(res.text, { result: expectedBacktest(dsl, window) });
    // The default window now ends at the new round and its lookbacks start in the older rounds.
    const latest = await post('backtest', { dsl, toRoundId: next!.id });
    expectBody(latest.text, { result: expectedBacktest(dsl, { toRoundId: next!.id }) });
  });
});

describe('without a lab-backtest replica', () => {
  it('answers 503 with Retry-After', async () => {
    await lab.process.stop();
    expect(lab.process.child.exitCode).toBe(0);
    const res = await post('backtest', { dsl: { base_strategy: 'corners', params: { bet_size_lamports: 1000 } } });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.body).toMatchObject({ code: 'service_unavailable' });
  });
});
