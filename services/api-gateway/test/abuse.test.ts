/**
 * The attacks of an impolite client against a real gateway process (PostgreSQL, Redis,
 * NATS), each shown to fail.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA, KeyStore } from '@gridlab/billing-store';
import { keyCacheKeys, tombstoneKey } from '@gridlab/key-cache';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { answersOk, startTcpProxy, syntheticRounds, createTestDatabase, freePort, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { Redis } from 'ioredis';

const SECRET = 'gateway-abuse-secret-0123456789abcdef';
const ROUNDS = 20_000;
const ns = testNamespace();
let db: TestDatabase;
let pool: Pool;
let redis: Redis;
let keys: KeyStore;
const processes: ServiceProcess[] = [];
let gateway: string;
let lab: ServiceProcess;
let billing: ServiceProcess;
let labOps: string;

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** A well-formed key nobody was issued (43 base58 characters: a shorter one is refused as malformed, never looked up). */
const randomKey = (): string => `grid_${Array.from(randomBytes(43), (b) => BASE58[b % 58]).join('')}`;
const randomOwner = (): string => Array.from(randomBytes(44), (b) => BASE58[b % 58]).join('');
let address = 0;
/** A client address of its own for each test (the gateway trusts X-Forwarded-For from loopback). */
const nextAddress = (): string => `198.51.100.${++address}`;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: db.url,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: 'warn',
    TRUSTED_PROXIES: '127.0.0.0/8,::1',
    AUTH_FAILURE_BURST: '5',
    AUTH_FAILURES_PER_MINUTE: '1',
    STREAMS_PER_KEY: '3',
    STREAMS_PER_ADDRESS: '5',
    STREAM_EXPIRY_CHECK_S: '1',
    DUMPS_PER_KEY: '1',
    DUMPS_PER_ADDRESS: '2',
    DUMP_POOL_SIZE: '2',
    DUMP_IDLE_TIMEOUT_S: '2',
    FACT_RELAY_MS: '200',
    // A Redis answer later than the default 50 ms makes a replica fall back to buckets of its
    // own (by design); bursts on a loaded two-core machine can take that long, and these
    // tests count the shared bucket.
    REDIS_TIMEOUT_MS: '2000',
    ...extra,
  };
}

async function startGateway(extra: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  processes.push(await startService('services/api-gateway/src/main.ts', env({ PORT: String(port), ...extra }), () => answersOk(`${url}/healthz`)));
  return url;
}

const get = (path: string, key: string | undefined, from: string, base = gateway) =>
  fetch(`${base}${path}`, { headers: { 'X-Forwarded-For': from, ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }) } });

async function grant(): Promise<string> {
  return (await keys.grant(randomOwner(), 30, new Date())).apiKey;
}

beforeAll(async () => {
  db = await createTestDatabase();
  for (const [schema, dir] of [
    [BILLING_SCHEMA, BILLING_MIGRATIONS_DIR],
    [INDEXER_SCHEMA, INDEXER_MIGRATIONS_DIR],
    [EVENTS_SCHEMA, EVENTS_MIGRATIONS_DIR],
  ] as const) {
    await runMigrations({ databaseUrl: db.url, schema, dir });
  }
  pool = createPool(db.url);
  keys = new KeyStore(pool, SECRET);
  // Enough rounds that a dump fills every socket buffer long before it ends (~30 MB of NDJSON).
  await new RoundRepository(pool).insertMany(syntheticRounds(ROUNDS));
  redis = new Redis(ns.redisUrl);
  gateway = await startGateway();
  const labPort = await freePort();
  labOps = `http://127.0.0.1:${labPort}`;
  lab = await startService(
    'services/lab-backtest/src/main.ts',
    env({ OPS_PORT: String(labPort), LAB_WORKERS: '1', LAB_MAX_QUEUE: '2', CATCH_UP_INTERVAL_MS: '600000' }),
    () => answersOk(`${labOps}/readyz`),
    60_000,
  );
  processes.push(lab);
  // Billing delivers revocations (tombstone + access.key.revoked) from its outbox.
  billing = await startBilling();
});

/** Billing delivers revocations (tombstone + access.key.revoked) from its outbox. */
async function startBilling(extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const billingPort = await freePort();
  const started = await startService(
    'services/billing/src/main.ts',
    env({ OPS_PORT: String(billingPort), SOLANA_RPC_URL: `http://127.0.0.1:${await freePort()}`, ...extra }),
    () => answersOk(`http://127.0.0.1:${billingPort}/healthz`),
  );
  processes.push(started);
  return started;
}

/** An open SSE response: its status, headers, and a way to wait for the server to end it. */
interface OpenStream {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown> | null;
  /** Resolves once the server has ended the stream. */
  ended(): Promise<void>;
  cancel(): void;
}

async function openStream(path: string, key: string, from: string, base = gateway): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}`, 'X-Forwarded-For': from }, signal: abort.signal });
  if (res.status !== 200) return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown>, ended: async () => undefined, cancel: () => undefined };
  const reader = res.body!.getReader();
  const ended = (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // aborted or reset: ended too
    }
  })();
  return { status: 200, headers: res.headers, body: null, ended: () => ended, cancel: () => abort.abort() };
}

const STREAMS = ['/api/v1/stream', '/api/v1/events/stream'];

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  redis.disconnect();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('unauthenticated floods (item 4)', () => {
  it('random well-formed keys: a few 401s per address, then 429 too_many_failed_auths before any lookup; nothing written to Redis', async () => {
    const from = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await get('/api/v1/rounds?limit=1', randomKey(), from)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));

    // No lookup at all: with billing's key table locked, a lookup would hang; the refusal does not.
    const lock = await pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE billing.api_keys IN ACCESS EXCLUSIVE MODE');
      const res = await get('/api/v1/rounds?limit=1', randomKey(), from);
      expect(res.status).toBe(429);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect((await res.json()) as Record<string, unknown>).toMatchObject({ status: 429, code: 'too_many_failed_auths' });
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await lock.query('ROLLBACK');
      lock.release();
    }
    // Unknown keys leave nothing in Redis (no 24 h tombstones to fill it with).
    expect(await redis.keys(`${ns.redisPrefix}auth:*`)).toEqual([]);
  });

  it('a repeated unknown key is answered from the short negative cache without a lookup', async () => {
    const from = nextAddress();
    const unknown = randomKey();
    expect((await get('/api/v1/rounds?limit=1', unknown, from)).status).toBe(401);
    const lock = await pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE billing.api_keys IN ACCESS EXCLUSIVE MODE');
      expect((await get('/api/v1/rounds?limit=1', unknown, from)).status).toBe(401);
    } finally {
      await lock.query('ROLLBACK');
      lock.release();
    }
  });

  it('other addresses and real keys are not affected by a flooding address; revocation tombstones still work', async () => {
    const flooder = nextAddress();
    for (let i = 0; i < 10; i++) await get('/api/v1/rounds?limit=1', randomKey(), flooder);
    expect((await get('/api/v1/rounds?limit=1', randomKey(), flooder)).status).toBe(429);
    const owner = randomOwner();
    const key = (await keys.grant(owner, 30, new Date())).apiKey;
    const from = nextAddress();
    expect((await get('/api/v1/rounds?limit=1', key, from)).status).toBe(200);
    // A revoker's tombstone (24 h, in Redis) ends the cached key at once.
    const revoked = await keys.revokeOwner(owner, 'test', new Date());
    await tombstoneKey(redis, ns.redisPrefix, revoked!);
    expect((await get('/api/v1/rounds?limit=1', key, from)).status).toBe(401);
    expect(await redis.pttl(keyCacheKeys(ns.redisPrefix, revoked!).auth)).toBeGreaterThan(23 * 3600_000);
  });
});

describe('the per-key burst under concurrency', () => {
  it('a fresh key sent 70 requests at once gets its burst of 60 (and what refills meanwhile), on one replica and over two', async () => {
    const second = await startGateway();
    for (const bases of [[gateway], [gateway, second]]) {
      const key = await grant();
      const from = nextAddress();
      const started = Date.now();
      const statuses = await Promise.all(
        Array.from({ length: 70 }, async (_, i) => {
          const res = await get('/api/v1/rounds?limit=1', key, from, bases[i % bases.length]);
          await res.arrayBuffer();
          return res.status;
        }),
      );
      const refilled = Math.floor(((Date.now() - started) * 5) / 1000);
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      const answered = statuses.filter((s) => s === 200).length;
      expect(answered).toBeGreaterThanOrEqual(60);
      expect(answered).toBeLessThanOrEqual(60 + refilled);
    }
  });
});

describe('client addresses (item 7)', () => {
  it('TRUSTED_PROXIES takes CIDR ranges, and an IPv6 client rotating through its /64 is one address', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 8; i++) statuses.push((await get('/api/v1/rounds?limit=1', randomKey(), `2001:db8:77:1::${i.toString(16)}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // The neighbouring /64 is another client.
    expect((await get('/api/v1/rounds?limit=1', randomKey(), '2001:db8:77:2::1')).status).toBe(401);
  });
});

describe('open streams follow their key (item 5)', () => {
  it('a revoked key\'s open streams are closed at once (billing\'s outbox announces the revocation)', async () => {
    const owner = randomOwner();
    const key = (await keys.grant(owner, 30, new Date())).apiKey;
    const from = nextAddress();
    const streams = await Promise.all(STREAMS.map((path) => openStream(path, key, from)));
    expect(streams.map((s) => s.status)).toEqual([200, 200]);
    // As `gridlab admin revoke` does: revoked in PostgreSQL, in the outbox; billing delivers it.
    await keys.revokeOwner(owner, 'test', new Date());
    await Promise.all(streams.map((s) => s.ended()));
    expect((await openStream(STREAMS[0]!, key, from)).status).toBe(401);
  });

  it('a stream whose key expires is closed within the check interval; the key then gets 402', async () => {
    const owner = randomOwner();
    const issued = await keys.grant(owner, 30, new Date());
    await pool.query(`UPDATE billing.subscribers SET paid_until = now() + interval '2 seconds' WHERE id = $1`, [issued.subscriberId]);
    const from = nextAddress();
    const streams = await Promise.all(STREAMS.map((path) => openStream(path, issued.apiKey, from)));
    expect(streams.map((s) => s.status)).toEqual([200, 200]);
    await Promise.all(streams.map((s) => s.ended()));
    expect((await openStream(STREAMS[0]!, issued.apiKey, from)).status).toBe(402);
  });
});

describe('stream caps (item 3)', () => {
  it('at most STREAMS_PER_KEY streams per key (429 too_many_streams with RateLimit-*), a slot frees when one closes', async () => {
    const key = await grant();
    const open: OpenStream[] = [];
    for (let i = 0; i < 3; i++) open.push(await openStream(STREAMS[i % 2]!, key, nextAddress()));
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);
    for (const path of STREAMS) {
      const refused = await openStream(path, key, nextAddress());
      expect([refused.status, refused.body?.['code']]).toEqual([429, 'too_many_streams']);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.headers.get('ratelimit-limit')).toBe('3');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    open[0]!.cancel();
    let again = await openStream(STREAMS[0]!, key, nextAddress());
    while (again.status === 429) {
      await new Promise((r) => setTimeout(r, 50));
      again = await openStream(STREAMS[0]!, key, nextAddress());
    }
    expect(again.status).toBe(200);
    for (const s of [...open, again]) s.cancel();
  });

  it('at most STREAMS_PER_ADDRESS streams per client address, whatever the keys', async () => {
    const from = nextAddress();
    const open: OpenStream[] = [];
    for (let i = 0; i < 5; i++) open.push(await openStream(STREAMS[0]!, await grant(), from));
    expect(open.every((s) => s.status === 200)).toBe(true);
    const refused = await openStream(STREAMS[1]!, await grant(), from);
    expect([refused.status, refused.body?.['code']]).toEqual([429, 'too_many_streams_from_address']);
    expect((await openStream(STREAMS[1]!, await grant(), nextAddress())).status).toBe(200);
    for (const s of open) s.cancel();
  });
});

describe('NDJSON dump caps (item 3)', () => {
  const dump = (key: string, from: string, signal?: AbortSignal) =>
    fetch(`${gateway}/api/v1/dump`, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/x-ndjson', 'X-Forwarded-For': from }, ...(signal ? { signal } : {}) });

  it('one key that opens dumps and stops reading holds one dump slot, never the pool; it is dropped after the idle timeout', async () => {
    const hog = await grant();
    const aborts: AbortController[] = [];
    const statuses: number[] = [];
    const codes: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      const abort = new AbortController();
      aborts.push(abort);
      const res = await dump(hog, nextAddress(), abort.signal);
      statuses.push(res.status);
      // The body is never read: the one admitted dump stalls with full socket buffers.
      if (res.status !== 200) codes.push(((await res.json()) as Record<string, unknown>)['code']);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(new Set(codes)).toEqual(new Set(['too_many_dumps']));

    // Everyone else is served meanwhile: a new key (a PostgreSQL lookup), /stats, pages of /dump.
    const other = await grant();
    const from = nextAddress();
    expect((await get('/api/v1/stats', other, from)).status).toBe(200);
    expect((await get('/api/v1/dump?limit=10', other, from)).status).toBe(200);
    const full = await dump(other, from);
    expect(full.status).toBe(200);
    const lines = (await full.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(ROUNDS);

    // The stalled dump is dropped after the idle timeout: the hog's slot frees.
    let again = await dump(hog, nextAddress());
    while (again.status === 429) {
      await new Promise((r) => setTimeout(r, 200));
      again = await dump(hog, nextAddress());
    }
    expect(again.status).toBe(200);
    await again.body?.cancel();
    for (const a of aborts) a.abort();
  });

  it('per address, whatever the keys (429 too_many_dumps_from_address)', async () => {
    const from = nextAddress();
    const open = [await dump(await grant(), from), await dump(await grant(), from)];
    expect(open.map((r) => r.status)).toEqual([200, 200]);
    const refused = await dump(await grant(), from);
    expect([refused.status, ((await refused.json()) as Record<string, unknown>)['code']]).toEqual([429, 'too_many_dumps_from_address']);
    for (const r of open) await r.body?.cancel();
  });

  /** Reads `res` one chunk at a time, `everyMs` apart, until stopped: a client that keeps its dump barely moving. */
  function trickle(res: Response, everyMs: number): { stop(): Promise<void> } {
    const reader = res.body!.getReader();
    let stopped = false;
    const reading = (async () => {
      while (!stopped) {
        const chunk = await reader.read().catch(() => ({ done: true }));
        if (chunk.done) return;
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        await reader.cancel().catch(() => undefined);
        await reading;
      },
    };
  }

  it('two paid keys reading slowly cannot hold every dump slot: they are dropped below the minimum rate', async () => {
    // 8 MiB per 2 s window (its own gateway, two dump slots): a chunk every 100 ms moves less.
    const base = await startGateway({ DUMP_MIN_RATE_KIB_S: '4096' });
    const dumpAt = (key: string) =>
      fetch(`${base}/api/v1/dump`, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/x-ndjson', 'X-Forwarded-For': nextAddress() } });
    const slow: { stop(): Promise<void> }[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await dumpAt(await grant());
      expect(res.status).toBe(200);
      slow.push(trickle(res, 100));
    }
    const other = await grant();
    const busy = await dumpAt(other);
    expect([busy.status, ((await busy.json()) as Record<string, unknown>)['code']]).toEqual([503, 'dumps_busy']);
    // Within a few windows both are dropped and the slots serve someone else (nothing
    // else would end them: the reads move the socket in every window, for minutes).
    const deadline = Date.now() + 15_000;
    let admitted = await dumpAt(other);
    while (admitted.status === 503 && Date.now() < deadline) {
      await admitted.body?.cancel();
      await new Promise((r) => setTimeout(r, 250));
      admitted = await dumpAt(other);
    }
    expect(admitted.status).toBe(200);
    await admitted.body?.cancel();
    for (const s of slow) await s.stop();
  });

  it('a dump running past DUMP_MAX_DURATION_S is ended, however steadily it is read', async () => {
    const base = await startGateway({ DUMP_MAX_DURATION_S: '2', DUMP_MIN_RATE_KIB_S: '0' });
    const key = await grant();
    const from = nextAddress();
    const dumpAt = (signal?: AbortSignal) =>
      fetch(`${base}/api/v1/dump`, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/x-ndjson', 'X-Forwarded-For': from }, ...(signal ? { signal } : {}) });
    const opened = Date.now();
    const first = await dumpAt();
    expect(first.status).toBe(200);
    const reading = trickle(first, 100);
    // The key's one dump slot (DUMPS_PER_KEY=1) frees when the server ends the first dump.
    let second = await dumpAt();
    while (second.status === 429 && Date.now() - opened < 15_000) {
      await second.body?.cancel();
      await new Promise((r) => setTimeout(r, 200));
      second = await dumpAt();
    }
    expect(second.status).toBe(200);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(2000);
    await second.body?.cancel();
    await reading.stop();
  });
});

describe('/events/stream replay', () => {
  it('stops reading the log for a client it ended for not reading', async () => {
    // 400 pages of the log: a client that reads nothing is ended after about 1 MiB unsent and the socket buffers.
    const EVENTS = 400_000;
    await pool.query(
      `INSERT INTO events.events (id, dedup_key, kind, ts, body, round_id)
       SELECT n, 'milestone:' || n, 'milestone', now(), jsonb_build_object('roundId', n, 'milestone', 'rounds', 'value', n), n FROM generate_series(1, $1::int) n`,
      [EVENTS],
    );
    const opsPort = await freePort();
    const base = await startGateway({ OPS_PORT: String(opsPort) });
    const pages = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
      const value = /^gateway_event_replay_pages_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1];
      if (value === undefined) throw new Error('no gateway_event_replay_pages_total in /metrics');
      return Number(value);
    };
    const abort = new AbortController();
    const res = await fetch(`${base}/api/v1/events/stream?since=0`, { headers: { Authorization: `Bearer ${await grant()}`, 'X-Forwarded-For': nextAddress() }, signal: abort.signal });
    expect(res.status).toBe(200);
    // The body is never read. Once the count stops moving, the replay is over.
    let last = -1;
    let now = await pages();
    for (let stable = 0; stable < 4; stable = now === last ? stable + 1 : 0) {
      await new Promise((r) => setTimeout(r, 500));
      last = now;
      now = await pages();
    }
    expect(now).toBeGreaterThan(1);
    expect(now).toBeLessThan(EVENTS / 1000 / 2);
    abort.abort();
    await pool.query('DELETE FROM events.events WHERE id <= $1', [EVENTS]);
  });
});

describe('Strategy Lab caps (item 3)', () => {
  const post = (path: string, key: string, body: unknown, base = gateway) =>
    fetch(`${base}/api/v1/lab/${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'X-Forwarded-For': nextAddress() },
      body: JSON.stringify(body),
    });
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`${labOps}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith(name))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  };

  it("one key's varied analytics at its rate cannot make another key's backtest 503: 2 in flight per key, the rest 429 too_many_lab_jobs", async () => {
    const hog = await grant();
    const other = await grant();
    // lab-backtest stopped: every request the gateway admits stays in flight, deterministically.
    lab.child.kill('SIGSTOP');
    const settled: Response[] = [];
    let hogged: Promise<Response>[] = [];
    let otherStatus = 0;
    try {
      hogged = Array.from({ length: 8 }, (_, i) =>
        post('analytics', hog, { dsl: { base_strategy: 'hot', params: { bet_size_lamports: 1000 + i, num_squares: 1 + (i % 5) } } }).then((r) => {
          settled.push(r);
          return r;
        }),
      );
      // Six answer at once with 429; two wait for lab-backtest (bounded, so that a gateway
      // admitting them all cannot leave lab-backtest stopped).
      const deadline = Date.now() + 30_000;
      while (settled.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const otherJob = post('backtest', other, { dsl: { base_strategy: 'cold', params: { bet_size_lamports: 1000 } } });
      lab.child.kill('SIGCONT');
      otherStatus = (await otherJob).status;
    } finally {
      lab.child.kill('SIGCONT');
    }
    const refused = settled.slice(0, 6);
    expect(refused.map((r) => r.status)).toEqual([429, 429, 429, 429, 429, 429]);
    const body = (await refused[0]!.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 429, code: 'too_many_lab_jobs' });
    expect(refused[0]!.headers.get('ratelimit-limit')).toBe('2');
    expect(otherStatus).toBe(200);
    const all = await Promise.all(hogged);
    expect(all.filter((r) => r.status === 200)).toHaveLength(2);
  });

  it('a job whose caller gave up (deadline passed) never takes a worker', async () => {
    const impatient = await startGateway({ LAB_TIMEOUT_MS: '300' });
    const key = await grant();
    const computedBefore = await metric('lab_job_seconds_count');
    const abandonedBefore = await metric('lab_jobs_abandoned_total');
    lab.child.kill('SIGSTOP');
    let res: Response;
    try {
      res = await post('backtest', key, { dsl: { base_strategy: 'cold', params: { bet_size_lamports: 2000 } } }, impatient);
    } finally {
      lab.child.kill('SIGCONT');
    }
    expect(res.status).toBe(504);
    while ((await metric('lab_jobs_abandoned_total')) === abandonedBefore) await new Promise((r) => setTimeout(r, 50));
    expect(await metric('lab_jobs_abandoned_total')).toBe(abandonedBefore + 1);
    expect(await metric('lab_job_seconds_count')).toBe(computedBefore);
  });
});

describe('the same limits and caps for requests sent together, on one replica and on two', () => {
  /**
   * Two fresh replicas with room for more dumps than the tests hold at once: the caps per
   * key and per address are what these tests count, not the replica's dump pool (a dropped
   * dump's slot frees only once its socket has closed).
   */
  let replicas: string[];
  beforeAll(async () => {
    replicas = await Promise.all([startGateway({ DUMP_POOL_SIZE: '20' }), startGateway({ DUMP_POOL_SIZE: '20' })]);
  });

  const status = async (res: Promise<Response>): Promise<number> => {
    const r = await res;
    await r.arrayBuffer();
    return r.status;
  };
  const count = (statuses: readonly unknown[], value: unknown): number => statuses.filter((s) => s === value).length;
  /** Failures the address's bucket (burst 5, 1 a minute, per replica) may have refilled since `started`. */
  const failureRefill = (started: number): number => Math.floor((Date.now() - started) / 60_000);

  /** One GET of the burst: which replica, which path, with which key, from which address. */
  interface BurstRequest {
    readonly base: string;
    readonly path: string;
    readonly key: string;
    readonly from: string;
  }

  /**
   * Sends a burst while billing's key table is locked, so every key lookup it starts hangs
   * until the lock goes. A barrier first: one connection per request is opened (and
   * verified idle and open) beforehand, then every request is written in one go. The lock
   * is held until every request has been written and `lookups` lookups wait on it (the
   * failure burst admitted at once; 30 s at most), and the burst is shown to have
   * overlapped: all requests out before the lock went, that many lookups hanging together.
   */
  async function whileLookupsHang(requests: readonly BurstRequest[], lookups: number): Promise<number[]> {
    const agents = new Map<string, Agent>();
    const agentOf = (base: string): Agent => {
      let agent = agents.get(base);
      if (agent === undefined) agents.set(base, (agent = new Agent({ keepAlive: true, maxSockets: requests.length })));
      return agent;
    };
    const get = (r: { base: string; path: string; headers: Record<string, string> }, written?: () => void): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(`${r.base}${r.path}`, { agent: agentOf(r.base), headers: r.headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        if (written !== undefined) req.on('finish', written);
        req.end();
      });
    const lock = await pool.connect();
    try {
      // The barrier: as many connections as requests, to each replica, open and idle.
      await Promise.all(requests.map((r) => get({ base: r.base, path: '/healthz', headers: {} })));
      const idle = [...agents.values()].reduce((n, agent) => n + Object.values(agent.freeSockets).reduce((m, list) => m + (list?.length ?? 0), 0), 0);
      expect(idle).toBe(requests.length);
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE billing.api_keys IN ACCESS EXCLUSIVE MODE');
      let written = 0;
      const answers = requests.map((r) => get({ base: r.base, path: r.path, headers: { 'X-Forwarded-For': r.from, Authorization: `Bearer ${r.key}` } }, () => void written++));
      const waiting = async (): Promise<number> =>
        (await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%billing.api_keys%'`)).rows[0].n;
      let hanging = 0;
      const deadline = Date.now() + 30_000;
      while ((written < requests.length || (hanging = await waiting()) < lookups) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // They overlapped: every request was out, and the lookups hung together, while the table was locked.
      expect({ written, lookupsHanging: hanging >= lookups }).toEqual({ written: requests.length, lookupsHanging: true });
      await lock.query('ROLLBACK');
      return await Promise.all(answers);
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      lock.release();
      for (const agent of agents.values()) agent.destroy();
    }
  }

  it.each([1, 2])('random well-formed keys sent together from one address: the failure burst per replica (%i) answers 401, the rest 429', async (n) => {
    const from = nextAddress();
    const started = Date.now();
    const sent = Array.from({ length: 40 }, () => randomKey());
    const statuses = await whileLookupsHang(
      sent.map((key, i) => ({ base: replicas[i % n]!, path: '/api/v1/rounds?limit=1', key, from })),
      5 * n,
    );
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(count(statuses, 401)).toBeGreaterThanOrEqual(5 * n);
    expect(count(statuses, 401)).toBeLessThanOrEqual(n * (5 + failureRefill(started)));
    // Unknown keys leave nothing in Redis.
    expect(await redis.exists(...sent.map((key) => keyCacheKeys(ns.redisPrefix, keys.hash(key)).auth))).toBe(0);
  });

  it('a real key from another address is served while an address floods both replicas with random keys at once', async () => {
    const flooder = nextAddress();
    const key = await grant();
    const from = nextAddress();
    // The real key is cached (as a key in use is): its requests need no lookup while the table is locked.
    expect(await Promise.all(replicas.map((base) => status(get('/api/v1/rounds?limit=1', key, from, base))))).toEqual([200, 200]);
    const started = Date.now();
    const statuses = await whileLookupsHang(
      [
        ...Array.from({ length: 40 }, (_, i) => ({ base: replicas[i % 2]!, path: '/api/v1/rounds?limit=1', key: randomKey(), from: flooder })),
        ...replicas.map((base) => ({ base, path: '/api/v1/rounds?limit=1', key, from })),
      ],
      2 * 5,
    );
    const floodStatuses = statuses.slice(0, 40);
    const realStatuses = statuses.slice(40);
    expect(realStatuses).toEqual([200, 200]);
    expect(floodStatuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(count(floodStatuses, 401)).toBeLessThanOrEqual(2 * (5 + failureRefill(started)));
  });

  it('an IPv6 client rotating through its /64 with requests sent together is still one address', async () => {
    const started = Date.now();
    const statuses = await whileLookupsHang(
      Array.from({ length: 40 }, (_, i) => ({ base: replicas[0]!, path: '/api/v1/rounds?limit=1', key: randomKey(), from: `2001:db8:78:1::${(i + 1).toString(16)}` })),
      5,
    );
    expect(count(statuses, 401)).toBeGreaterThanOrEqual(5);
    expect(count(statuses, 401)).toBeLessThanOrEqual(5 + failureRefill(started));
    expect(count(statuses, 429)).toBe(40 - count(statuses, 401));
  });

  it.each([1, 2])('streams of one key opened together: exactly STREAMS_PER_KEY admitted per replica (%i replicas)', async (n) => {
    const key = await grant();
    const opened = await Promise.all(Array.from({ length: 5 * n }, (_, i) => openStream(STREAMS[i % 2]!, key, nextAddress(), replicas[i % n])));
    try {
      for (let r = 0; r < n; r++) {
        const mine = opened.filter((_, i) => i % n === r);
        expect(count(mine.map((s) => s.status), 200)).toBe(3);
        expect(mine.filter((s) => s.status !== 200).map((s) => [s.status, s.body?.['code']])).toEqual([
          [429, 'too_many_streams'],
          [429, 'too_many_streams'],
        ]);
      }
    } finally {
      for (const s of opened) s.cancel();
    }
  });

  it('streams of one address opened together with different keys: exactly STREAMS_PER_ADDRESS admitted', async () => {
    const from = nextAddress();
    const keys = await Promise.all(Array.from({ length: 8 }, () => grant()));
    const opened = await Promise.all(keys.map((key, i) => openStream(STREAMS[i % 2]!, key, from, replicas[0])));
    try {
      expect(count(opened.map((s) => s.status), 200)).toBe(5);
      expect(opened.filter((s) => s.status !== 200).map((s) => [s.status, s.body?.['code']])).toEqual(Array.from({ length: 3 }, () => [429, 'too_many_streams_from_address']));
    } finally {
      for (const s of opened) s.cancel();
    }
  });

  const dump = (key: string, from: string, base: string, signal: AbortSignal) =>
    fetch(`${base}/api/v1/dump`, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/x-ndjson', 'X-Forwarded-For': from }, signal });

  /** Opens the dumps together; answers each one's status and code, then drops them all. */
  async function dumpsTogether(requests: { key: string; from: string; base: string }[]): Promise<[number, unknown][]> {
    const abort = new AbortController();
    try {
      const responses = await Promise.all(requests.map((r) => dump(r.key, r.from, r.base, abort.signal)));
      return await Promise.all(responses.map(async (res): Promise<[number, unknown]> => [res.status, res.status === 200 ? null : ((await res.json()) as Record<string, unknown>)['code']]));
    } finally {
      abort.abort();
    }
  }

  it.each([1, 2])('dumps of one key opened together: exactly DUMPS_PER_KEY admitted per replica (%i replicas)', async (n) => {
    const key = await grant();
    const answers = await dumpsTogether(Array.from({ length: 6 * n }, (_, i) => ({ key, from: nextAddress(), base: replicas[i % n]! })));
    for (let r = 0; r < n; r++) {
      const mine = answers.filter((_, i) => i % n === r);
      expect(count(mine.map((a) => a[0]), 200)).toBe(1);
      expect(mine.filter((a) => a[0] !== 200)).toEqual(Array.from({ length: 5 }, () => [429, 'too_many_dumps']));
    }
  });

  it('dumps of one address opened together with different keys: exactly DUMPS_PER_ADDRESS admitted', async () => {
    const from = nextAddress();
    const keys = await Promise.all(Array.from({ length: 4 }, () => grant()));
    const answers = await dumpsTogether(keys.map((key) => ({ key, from, base: replicas[0]! })));
    expect(count(answers.map((a) => a[0]), 200)).toBe(2);
    expect(answers.filter((a) => a[0] !== 200)).toEqual([
      [429, 'too_many_dumps_from_address'],
      [429, 'too_many_dumps_from_address'],
    ]);
  });
});

describe('degrade, do not fall over (item 6)', () => {
  const streamStatus = async (key: string, base: string): Promise<number> => {
    let s: OpenStream;
    try {
      s = await openStream('/api/v1/stream', key, nextAddress(), base);
    } catch (error) {
      // fetch took a pooled connection the gateway had just closed (after the stream before was
      // cancelled): no answer, so no status; asked again on a fresh connection.
      if (!(error instanceof TypeError && /other side closed|socket/i.test(String((error as { cause?: unknown }).cause)))) throw error;
      s = await openStream('/api/v1/stream', key, nextAddress(), base);
    }
    s.cancel();
    return s.status;
  };

  it('keys seen in the last minute keep working through a PostgreSQL outage; a key revoked meanwhile does not', async () => {
    const pg = await startTcpProxy('127.0.0.1', Number(new URL(db.url).port || 5432));
    const proxied = new URL(db.url);
    proxied.port = String(pg.port);
    const g = await startGateway({ DATABASE_URL: proxied.toString() });
    try {
      const ownerA = randomOwner();
      const ownerR = randomOwner();
      const keyA = (await keys.grant(ownerA, 30, new Date())).apiKey;
      const keyR = (await keys.grant(ownerR, 30, new Date())).apiKey;
      expect([await streamStatus(keyA, g), await streamStatus(keyR, g)]).toEqual([200, 200]);
      // R is revoked (billing's outbox: tombstone + access.key.revoked, which empties g's cache of it).
      const revoked = (await keys.revokeOwner(ownerR, 'test', new Date()))!;
      while ((await streamStatus(keyR, g)) !== 401) await new Promise((r) => setTimeout(r, 50));
      // Redis forgets both (its 60 s entries expired, say), then PostgreSQL goes away.
      await redis.del(keyCacheKeys(ns.redisPrefix, keys.hash(keyA)).auth, keyCacheKeys(ns.redisPrefix, revoked).auth);
      await pg.cut();
      expect(await streamStatus(keyA, g)).toBe(200);
      expect((await get('/api/v1/stats', keyA, nextAddress(), g)).status).toBe(503);
      expect(await streamStatus(keyR, g)).toBe(503);
      await pg.restore();
      let after = await streamStatus(keyR, g);
      while (after === 503) {
        await new Promise((r) => setTimeout(r, 100));
        after = await streamStatus(keyR, g);
      }
      expect(after).toBe(401);
      expect(await streamStatus(keyA, g)).toBe(200);
    } finally {
      await pg.close();
    }
  });

  it("a revocation whose Redis tombstone cannot be written is retried from billing's outbox until it lands", async () => {
    const redisProxy = await startTcpProxy('127.0.0.1', Number(new URL(ns.redisUrl).port || 6379));
    await billing.stop();
    const flaky = await startBilling({ REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`, FACT_RELAY_MS: '100' });
    try {
      const owner = randomOwner();
      const key = (await keys.grant(owner, 30, new Date())).apiKey;
      expect((await get('/api/v1/rounds?limit=1', key, nextAddress())).status).toBe(200);
      // Redis stops answering billing (its connection stays open, nothing reaches Redis).
      redisProxy.stall();
      const revoked = (await keys.revokeOwner(owner, 'test', new Date()))!;
      const pending = async () => (await pool.query('SELECT delivered_at FROM billing.revocations WHERE key_hash = $1', [revoked])).rows[0].delivered_at;
      // Billing tried to write the tombstone, failed (its Redis commands time out), and tried
      // again: the proxy heard the write twice. The revocation is still pending.
      const tombstone = keyCacheKeys(ns.redisPrefix, revoked).auth;
      const attempts = (): number => redisProxy.heard().split(tombstone).length - 1;
      const deadline = Date.now() + 30_000;
      while (attempts() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(attempts()).toBeGreaterThanOrEqual(2);
      expect(await pending()).toBeNull();
      expect(await redis.get(tombstone)).not.toBe('x');
      await redisProxy.restore();
      while ((await pending()) === null) await new Promise((r) => setTimeout(r, 100));
      expect(await redis.get(keyCacheKeys(ns.redisPrefix, revoked).auth)).toBe('x');
      expect((await get('/api/v1/rounds?limit=1', key, nextAddress())).status).toBe(401);
    } finally {
      await flaky.stop();
      await redisProxy.close();
      billing = await startBilling();
    }
  });
});
