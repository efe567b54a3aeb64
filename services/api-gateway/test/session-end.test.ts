/**
 * Dashboard sessions end when they say so, against real servers: billing, two gateway
 * replicas and a Redis of the test's own that is crashed and restarted. Sign-out raises
 * the subscriber's session epoch in billing's PostgreSQL store, so neither a Redis restart
 * nor a Redis outage brings a signed-out cookie back; streams and dumps a session opened
 * close when it is signed out (on any replica) or expires; sessions are signed with
 * SESSION_SECRET alone, so replacing it ends every session and no customer's key.
 */
import { randomBytes } from 'node:crypto';
import { connectBus } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { createPool, runMigrations } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { createLogger } from '@gridlab/logger';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import {
  answersOk,
  createTestDatabase,
  freePort,
  runCli,
  startRedisServer,
  startService,
  syntheticRounds,
  testNamespace,
  TEST_SESSION_SECRET,
  type Engine,
  type ServiceProcess,
  type TestDatabase,
} from '@gridlab/testing';
import bs58 from 'bs58';

const SECRET = 'session-end-test-secret-0123456789abcdef';
/** Enough rounds that a dump nobody reads stalls with full socket buffers (it stays open). */
const ROUNDS = 20_000;

let db: TestDatabase;
let redis: Engine;
const ns = testNamespace();
let billing: ServiceProcess;
const gateways: ServiceProcess[] = [];
/** Two replicas sharing everything. */
let a: string;
let b: string;
/** A replica whose sessions last 5 s and whose streams are checked every second. */
let brief: string;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: db.url,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_URL: redis.url,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: 'error',
    ...extra,
  };
}

async function startGateway(extra: Record<string, string> = {}): Promise<{ url: string; process: ServiceProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // A Redis answer later than the default 50 ms makes a replica fall back to buckets of its
  // own (by design); a burst on a loaded two-core machine can take that long, and the
  // sign-out test counts the shared bucket. (A crashed Redis still fails at once: its
  // connection is gone, and commands are not queued.)
  const process = await startService('services/api-gateway/src/main.ts', env({ PORT: String(port), PUBLIC_ORIGIN: url, REDIS_TIMEOUT_MS: '2000', ...extra }), () =>
    answersOk(`${url}/healthz`),
  );
  gateways.push(process);
  return { url, process };
}

async function startBilling(): Promise<ServiceProcess> {
  const port = await freePort();
  return startService('services/billing/src/main.ts', env({ OPS_PORT: String(port) }), () => answersOk(`http://127.0.0.1:${port}/readyz`));
}

async function grant(): Promise<string> {
  const owner = bs58.encode(randomBytes(32));
  const granted = await runCli(['admin', 'grant', '--owner', owner, '--days', '1'], { ...process.env, ...env() });
  return (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
}

/** A request as the dashboard page sends it to `base` (its own origin). */
async function call(base: string, path: string, init: { method?: string; cookie?: string; body?: unknown } = {}) {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { Origin: base, ...(init.cookie === undefined ? {} : { Cookie: init.cookie }), ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

async function signIn(base: string, apiKey: string): Promise<string> {
  const res = await call(base, '/api/live/session', { method: 'POST', body: { apiKey } });
  expect(res.status).toBe(201);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

/** The cookie, replayed from elsewhere, on one replica: its status and problem code. */
async function replay(base: string, cookie: string): Promise<[number, unknown]> {
  const res = await call(base, '/api/live/stats', { cookie });
  return [res.status, res.body['code']];
}

/** The cookie replayed on both replicas. */
const everywhere = async (cookie: string) => [await replay(a, cookie), await replay(b, cookie)];
const REFUSED_EVERYWHERE = [
  [401, 'session_required'],
  [401, 'session_required'],
];

/**
 * A session-authorized response held open and not read; `ended()` then reads it and
 * resolves once the server has ended it, with whether it came to its natural end.
 */
async function hold(base: string, path: string, cookie: string): Promise<{ status: number; ended: () => Promise<{ complete: boolean; bytes: number }> }> {
  // Uncompressed, so a dump nobody reads fills the socket buffers and stays open.
  const res = await fetch(`${base}${path}`, { headers: { Origin: base, Cookie: cookie, Accept: path.endsWith('/dump') ? 'application/x-ndjson' : 'text/event-stream', 'Accept-Encoding': 'identity' } });
  if (res.status !== 200) return { status: res.status, ended: async () => ({ complete: true, bytes: 0 }) };
  return {
    status: 200,
    ended: async () => {
      const reader = res.body!.getReader();
      let bytes = 0;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return { complete: true, bytes };
          bytes += value.length;
        }
      } catch {
        return { complete: false, bytes };
      }
    },
  };
}

/** `promise`, or a rejection naming `what` after `ms`. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} still open after ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

beforeAll(async () => {
  db = await createTestDatabase();
  redis = await startRedisServer();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR });
  const pool = createPool(db.url);
  await new RoundRepository(pool).insertMany(syntheticRounds(ROUNDS));
  await pool.end();
  billing = await startBilling();
  [{ url: a }, { url: b }, { url: brief }] = await Promise.all([startGateway(), startGateway(), startGateway({ SESSION_TTL_S: '5', STREAM_EXPIRY_CHECK_S: '1' })]);
});

afterAll(async () => {
  await Promise.all([...gateways.map((g) => g.stop()), billing?.stop()]);
  await redis?.stop();
  await db?.drop();
  await ns.cleanup();
});

describe('sign-out', () => {
  it('ends every copy of the cookie on every replica, and a Redis restart brings none back', async () => {
    const apiKey = await grant();
    const cookie = await signIn(a, apiKey);
    expect(await everywhere(cookie)).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    const out = await call(a, '/api/live/session', { method: 'DELETE', cookie });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^gridlab_session=; .*Max-Age=0/);
    expect(await everywhere(cookie)).toEqual(REFUSED_EVERYWHERE);
    await redis.crashAndRestart();
    expect(await everywhere(cookie)).toEqual(REFUSED_EVERYWHERE);
    // The key itself works on, and signs in again.
    expect(await replay(b, await signIn(b, apiKey))).toEqual([200, undefined]);
  });

  it('ends the session during a Redis outage too, and it stays ended once Redis is back', async () => {
    const apiKey = await grant();
    const cookie = await signIn(a, apiKey);
    await redis.crash();
    try {
      const out = await call(a, '/api/live/session', { method: 'DELETE', cookie });
      expect([out.status, out.headers.get('set-cookie')?.includes('Max-Age=0')]).toEqual([204, true]);
      expect(await everywhere(cookie)).toEqual(REFUSED_EVERYWHERE);
    } finally {
      await redis.start();
    }
    expect(await everywhere(cookie)).toEqual(REFUSED_EVERYWHERE);
  });

  it("closes the session's streams and dump on another replica at once", async () => {
    const cookie = await signIn(a, await grant());
    const held = await Promise.all(['/api/live/stream', '/api/live/events/stream', '/api/live/dump'].map((path) => hold(b, path, cookie)));
    expect(held.map((h) => h.status)).toEqual([200, 200, 200]);
    expect((await call(a, '/api/live/session', { method: 'DELETE', cookie })).status).toBe(204);
    const ends = await within(5_000, 'a signed-out session stream', Promise.all(held.map((h) => h.ended())));
    // The dump was cut, not read to its end (20,000 rounds nobody was reading).
    expect(ends[2]!.complete).toBe(false);
  });

  it('answers the truth when billing cannot end the session: the browser forgets it, the page is told it still works elsewhere', async () => {
    const apiKey = await grant();
    const cookie = await signIn(a, apiKey);
    await billing.stop();
    try {
      const out = await call(a, '/api/live/session', { method: 'DELETE', cookie });
      expect([out.status, out.body['code'], out.headers.get('set-cookie')?.includes('Max-Age=0')]).toEqual([503, 'sign_out_incomplete', true]);
      expect(String(out.body['detail'])).toMatch(/could not end it: a copy of its cookie works until \d{4}-\d\d-\d\dT/);
      // Which is true: a copy still works.
      expect(await replay(b, cookie)).toEqual([200, undefined]);
    } finally {
      billing = await startBilling();
    }
    // As the answer says: signing in and out again ends it (sign-out ends every session of the subscriber).
    const again = await signIn(b, apiKey);
    expect((await call(b, '/api/live/session', { method: 'DELETE', cookie: again })).status).toBe(204);
    expect([await replay(a, cookie), await replay(b, again)]).toEqual([
      [401, 'session_required'],
      [401, 'session_required'],
    ]);
  });
});

describe('session expiry', () => {
  it("closes the session's stream when the session expires, though the key is paid for longer", async () => {
    const cookie = await signIn(brief, await grant());
    const stream = await hold(brief, '/api/live/stream', cookie);
    expect(stream.status).toBe(200);
    await within(10_000, 'an expired session stream', stream.ended());
    expect((await replay(brief, cookie))[0]).toBe(401);
  });
});

describe('SESSION_SECRET', () => {
  it("ends every session when replaced, and no customer's key", async () => {
    const apiKey = await grant();
    const { url, process: old } = await startGateway();
    const cookie = await signIn(url, apiKey);
    await old.stop();
    const port = new URL(url).port;
    const rotated = await startService(
      'services/api-gateway/src/main.ts',
      env({ PORT: port, PUBLIC_ORIGIN: url, SESSION_SECRET: `next:${'n'.repeat(40)}` }),
      () => answersOk(`${url}/healthz`),
    );
    gateways.push(rotated);
    expect(await replay(url, cookie)).toEqual([401, 'session_required']);
    expect((await fetch(`${url}/api/v1/stats`, { headers: { Authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    expect(await replay(url, await signIn(url, apiKey))).toEqual([200, undefined]);
  });
});

describe('sign-out under abuse', () => {
  it('a replayed signed-out cookie makes billing write nothing, and sign-outs are limited per client address', async () => {
    const bus = await connectBus({ servers: ns.natsUrl, name: 'session-end-count', logger: createLogger({ service: 'test', silent: true }) });
    let announced = 0;
    bus.subscribe(natsNames(ns.natsPrefix).subjects.sessionEnded, { callback: () => void announced++ });
    await bus.flush();
    try {
      const cookie = await signIn(a, await grant());
      expect((await call(a, '/api/live/session', { method: 'DELETE', cookie })).status).toBe(204);
      await bus.flush();
      expect(announced).toBe(1);
      // The same cookie, replayed many times at once on both replicas: already over, nothing asked of billing.
      const started = performance.now();
      const statuses = await Promise.all(Array.from({ length: 150 }, (_, i) => call(i % 2 === 0 ? a : b, '/api/live/session', { method: 'DELETE', cookie }).then((r) => [r.status, r.body['code']])));
      const elapsedS = (performance.now() - started) / 1000;
      const admitted = statuses.filter(([status]) => status === 204).length;
      expect(admitted).toBeGreaterThan(0);
      // One bucket shared by both replicas (Redis): at most its burst plus what it refilled
      // during the burst. A bucket per replica would have let all 150 through (75 each).
      expect(admitted).toBeLessThanOrEqual(100 + Math.ceil(20 * elapsedS));
      // The address's bucket (100, then 20 a second) refuses the rest.
      expect(statuses.filter(([status, code]) => status === 429 && code === 'rate_limited').length).toBeGreaterThan(0);
      expect(statuses.every(([status]) => status === 204 || status === 429)).toBe(true);
      await bus.flush();
      expect(announced).toBe(1);
    } finally {
      await bus.close();
    }
  });
});
