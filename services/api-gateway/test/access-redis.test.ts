/**
 * The request path over real Redis: the gate's script (key cache, bucket, sharing
 * tracker) called directly, then the request path (app/access.ts) with its leases and
 * tracking schedule over it, on one replica and on two.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { AuthError, PaymentRequiredError } from '@gridlab/errors';
import { tombstoneKey } from '@gridlab/key-cache';
import { createLogger } from '@gridlab/logger';
import { RedisGate } from '../src/adapters/redis/redis-gate';
import { Access, DEFAULT_ACCESS, RateLimitedWithDecision } from '../src/app/access';
import type { GateAnswer, SharedGate } from '../src/app/ports';
import type { BucketDecision } from '../src/domain/token-bucket';
import { DEFAULT_LEASE_POLICY, type LeasePolicy } from '../src/domain/token-lease';
import { IP_POLICY, KEY_POLICY } from '../src/domain/token-bucket';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `test:${randomBytes(6).toString('hex')}:`;
const redis = new Redis(REDIS_URL, { lazyConnect: false });
const options = {
  prefix,
  keyPolicy: KEY_POLICY,
  sharingWindowMs: 300_000,
  maxAddressesPerKey: 3,
};
const gate = new RedisGate(redis, options);
/** Clients of other replicas, closed at the end even when a test fails half way. */
const clients: Redis[] = [];
const paidUntilMs = Date.now() + 86_400_000;
/** Whole tokens a bucket refilling `perSecond` may have added since `started`. */
const refilled = (started: number, perSecond: number): number => Math.floor(((Date.now() - started) * perSecond) / 1000);
/** No lease to give back or ask for. */
const NO_LEASE = { refund: 0, released: 0, askLease: false };

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  await redis.quit();
});

/** What a request was answered, in the terms the tests compare. */
type Outcome =
  | { readonly state: 'ok'; readonly subscriberId: string; readonly decision: BucketDecision }
  | { readonly state: 'invalid' }
  | { readonly state: 'expired' };

/**
 * A gateway replica's request path over a Redis connection of its own: `check` sends a
 * request of a key (cached with `remember`; billing's table knows no key), `answers`
 * records every script call's answer, `flags` the key-sharing signals.
 */
function replica({ now = Date.now, lease = DEFAULT_LEASE_POLICY, client = new Redis(REDIS_URL) }: { now?: () => number; lease?: LeasePolicy; client?: Redis } = {}) {
  if (client !== redis) clients.push(client);
  const redisGate = new RedisGate(client, { ...options, lease });
  const answers: GateAnswer[] = [];
  const flags: number[] = [];
  const recorded: SharedGate = {
    check: async (hash, address, cost, track, lease) => {
      const answer = await redisGate.check(hash, address, cost, track, lease);
      answers.push(answer);
      return answer;
    },
    remember: (hash, record) => redisGate.remember(hash, record),
    takeForAddress: (policy, address, cost) => redisGate.takeForAddress(policy, address, cost),
  };
  const access = new Access(
    { gate: recorded, keys: { hash: () => randomBytes(32), lookup: async () => null }, sessions: { check: async () => undefined }, events: { redisFallback: () => undefined, keySharing: (_h, _s, distinct) => void flags.push(distinct) } },
    createLogger({ service: 'test', silent: true }),
    { ...DEFAULT_ACCESS, lease, sharingWindowMs: options.sharingWindowMs, failurePolicy: { capacity: 1000, refillPerSecond: 100 } },
    now,
  );
  const check = (hash: Buffer, address: string): Promise<Outcome> =>
    access.admit({ keyHash: hash }, address).then(
      (caller): Outcome => ({ state: 'ok', subscriberId: caller.subscriberId, decision: caller.decision }),
      (error: unknown): Outcome => {
        if (error instanceof RateLimitedWithDecision) return { state: 'ok', subscriberId: '', decision: error.decision };
        if (error instanceof PaymentRequiredError) return { state: 'expired' };
        if (error instanceof AuthError) return { state: 'invalid' };
        throw error;
      },
    );
  /** The distinct-address count of the last script call, -1 when the request was served without one or untracked. */
  const lastDistinct = (before: number): number => {
    const answer = answers.length > before ? answers[answers.length - 1] : undefined;
    return answer?.state === 'ok' ? answer.distinctAddresses : -1;
  };
  return { access, gate: redisGate, check, answers, flags, lastDistinct };
}

/** A replica whose clock moves a lease gap per request: a key polled steadily, as leases are for. */
function polled(lease: LeasePolicy = DEFAULT_LEASE_POLICY) {
  let now = Date.now();
  const r = replica({ now: () => now, lease });
  const check = (hash: Buffer, address: string) => {
    now += DEFAULT_LEASE_POLICY.minGapMs;
    return r.check(hash, address);
  };
  return { ...r, check, advance: (ms: number) => (now += ms) };
}

const bucketField = async (hash: Buffer, field: string) => Number(await redis.hget(`${prefix}bucket:${hash.toString('hex')}`, field));
const allowedOf = (answers: readonly Outcome[]): number => answers.filter((r) => r.state === 'ok' && r.decision.allowed).length;

describe('the Redis gate (one script call)', () => {
  it('reports a cache miss for a key it has never seen, without creating a bucket', async () => {
    const hash = randomBytes(32);
    expect(await gate.check(hash, '10.0.0.1', 1, false, NO_LEASE)).toEqual({ state: 'miss' });
    expect(await redis.exists(`${prefix}bucket:${hash.toString('hex')}`)).toBe(0);
  });

  it('allows the burst of 60 (plus what refills meanwhile), then rejects', async () => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_x', paidUntilMs });
    const started = Date.now();
    let allowed = 0;
    let rejected;
    for (let i = 0; i < 400 && rejected === undefined; i++) {
      const r = await gate.check(hash, '10.0.0.1', 1, false, NO_LEASE);
      if (r.state === 'ok' && r.allowed) allowed++;
      else rejected = r;
    }
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + Math.ceil(((Date.now() - started) / 1000) * 5));
    expect(rejected).toMatchObject({ state: 'ok', subscriberId: 'sub_x', allowed: false, leaseTokens: 0 });
  });

  it('shares one bucket between two clients (two gateway replicas)', async () => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_y', paidUntilMs });
    const otherClient = new Redis(REDIS_URL);
    const other = new RedisGate(otherClient, options);
    const started = Date.now();
    let allowed = 0;
    for (let i = 0; i < 40; i++) {
      for (const g of [gate, other]) {
        const r = await g.check(hash, '10.0.0.2', 1, false, NO_LEASE);
        if (r.state === 'ok' && r.allowed) allowed++;
      }
    }
    await otherClient.quit();
    // 80 requests: the burst plus the refills of the elapsed time, across both clients.
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + Math.ceil(((Date.now() - started) / 1000) * 5));
  });

  it('reports an expired subscription without spending tokens', async () => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_z', paidUntilMs: Date.now() - 1000 });
    expect(await gate.check(hash, '10.0.0.1', 1, false, NO_LEASE)).toMatchObject({ state: 'expired', subscriberId: 'sub_z' });
    expect(await redis.exists(`${prefix}bucket:${hash.toString('hex')}`)).toBe(0);
  });

  it('keeps a revoked key revoked even if a stale fill races the revocation', async () => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_r', paidUntilMs });
    await tombstoneKey(redis, prefix, hash);
    await gate.remember(hash, { subscriberId: 'sub_r', paidUntilMs });
    expect(await gate.check(hash, '10.0.0.1', 1, false, NO_LEASE)).toEqual({ state: 'invalid' });
  });

  it('limits public endpoints per address with their own policy', async () => {
    const ip = `192.0.2.${randomBytes(1)[0]}`;
    const started = Date.now();
    let allowed = 0;
    for (let i = 0; i < 101; i++) if ((await gate.takeForAddress(IP_POLICY, ip)).allowed) allowed++;
    expect(allowed).toBeGreaterThanOrEqual(100);
    expect(allowed).toBeLessThanOrEqual(Math.min(101, 100 + Math.ceil(((Date.now() - started) / 1000) * 20)));
  });
});

describe('the request path over Redis', () => {
  it('refuses an expired subscription (402) and a revoked key (401) without spending tokens', async () => {
    const { check } = replica({ client: redis });
    const expired = randomBytes(32);
    await gate.remember(expired, { subscriberId: 'sub_z2', paidUntilMs: Date.now() - 1000 });
    expect(await check(expired, '10.0.0.1')).toEqual({ state: 'expired' });
    const revoked = randomBytes(32);
    await tombstoneKey(redis, prefix, revoked);
    expect(await check(revoked, '10.0.0.1')).toEqual({ state: 'invalid' });
    expect(await redis.exists(`${prefix}bucket:${expired.toString('hex')}`, `${prefix}bucket:${revoked.toString('hex')}`)).toBe(0);
  });

  it('flags a key used from more than 3 addresses once per window, recording each address at most every minute (a fifth of the window)', async () => {
    const hash = randomBytes(32);
    const { check, lastDistinct, answers, flags } = replica({ client: redis });
    await gate.remember(hash, { subscriberId: 'sub_s', paidUntilMs });
    const seen = [];
    for (const ip of ['1.1.1.1', '2.2.2.2', '3.3.3.3', '3.3.3.3', '4.4.4.4', '5.5.5.5']) {
      const before = answers.length;
      expect(await check(hash, ip)).toMatchObject({ state: 'ok' });
      seen.push(lastDistinct(before));
    }
    // 3.3.3.3 again within the minute: only the bucket is touched.
    expect(seen).toEqual([1, 2, 3, -1, 4, 5]);
    expect(flags).toEqual([4]);
  });

  it('records a pair in use again once a fifth of the window has passed', async () => {
    const hash = randomBytes(32);
    let now = Date.now();
    const { check, lastDistinct, answers } = replica({ now: () => now });
    await gate.remember(hash, { subscriberId: 'sub_t', paidUntilMs });
    const seen = async () => {
      const before = answers.length;
      await check(hash, '10.0.0.6');
      return lastDistinct(before);
    };
    expect(await seen()).toBe(1);
    now += options.sharingWindowMs / 5 - 1; // past the lease, not yet due: the bucket only
    expect(await seen()).toBe(-1);
    now += 1;
    expect(await seen()).toBe(1);
  });

  it('records an address seen first on a cache miss once the key is cached', async () => {
    const hash = randomBytes(32);
    const { check, lastDistinct, answers } = replica({ client: redis });
    expect(await check(hash, '9.9.9.1')).toEqual({ state: 'invalid' });
    await gate.remember(hash, { subscriberId: 'sub_m', paidUntilMs });
    const before = answers.length;
    expect(await check(hash, '9.9.9.1')).toMatchObject({ state: 'ok' });
    expect(lastDistinct(before)).toBe(1);
  });

  it('serves a steadily polled key from a lease of its tokens: one script call per lease, exact near the limit', async () => {
    const hash = randomBytes(32);
    const { check, answers } = polled();
    await gate.remember(hash, { subscriberId: 'sub_l', paidUntilMs });
    const remaining: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await check(hash, '10.0.0.9');
      if (r.state === 'ok' && r.decision.allowed) remaining.push(r.decision.remaining);
    }
    // A key's first request has no pace yet: 60 - 1. The second takes one and leases 10
    // (48 left in Redis, 10 counted as out on lease): the next 10 requests need no call.
    expect(answers).toHaveLength(2);
    // Served from the lease: its tokens left plus the shared bucket's 48 and what it
    // refilled since, by this replica's clock (a gap per request, 5 tokens a second).
    const fromLease = Array.from({ length: 10 }, (_, i) => Math.floor(48 + (10 - (i + 1)) + ((i + 1) * DEFAULT_LEASE_POLICY.minGapMs * 5) / 1000));
    expect(remaining).toEqual([59, 58, ...fromLease]);
    expect(Math.floor(await bucketField(hash, 'tokens'))).toBe(48);
    expect(await bucketField(hash, 'leased')).toBe(10);
    // Spend down to the limit: every token is granted once, the 429 comes exactly when the bucket is dry.
    let allowed = 12;
    const started = Date.now();
    for (let i = 0; i < 200; i++) {
      const r = await check(hash, '10.0.0.9');
      if (r.state !== 'ok' || !r.decision.allowed) break;
      allowed++;
    }
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + Math.ceil(((Date.now() - started) / 1000 + 0.1) * 5));
    expect(answers.length).toBeLessThan(allowed);
  });

  it('leases nothing to a key whose requests come back to back or together', async () => {
    const hash = randomBytes(32);
    const { check } = replica();
    await gate.remember(hash, { subscriberId: 'sub_b', paidUntilMs });
    for (let i = 0; i < 5; i++) await check(hash, '10.0.0.5');
    await Promise.all(Array.from({ length: 5 }, () => check(hash, '10.0.0.5')));
    expect(Number(await redis.hexists(`${prefix}bucket:${hash.toString('hex')}`, 'leased'))).toBe(0);
  });

  it("gives a lease's unused tokens back with the next call, and counts an expired lease until the bucket's own clock ends it", async () => {
    const hash = randomBytes(32);
    const { check, advance } = polled();
    await gate.remember(hash, { subscriberId: 'sub_g', paidUntilMs });
    await check(hash, '10.0.0.8'); // 59
    await check(hash, '10.0.0.8'); // 58: 48 in Redis, 10 leased
    for (let i = 0; i < 8; i++) await check(hash, '10.0.0.8'); // from the lease: 2 unused
    advance(DEFAULT_LEASE_POLICY.ttlMs); // past the lease's time to live here...
    await check(hash, '10.0.0.8'); // gives 2 back, takes 1; no lease after a pause that long
    // ...but not yet for Redis, which counts the lease's 10 until its own clock passes it.
    expect(Math.floor(await bucketField(hash, 'tokens'))).toBe(48 + 2 - 1);
    expect(await bucketField(hash, 'leased')).toBe(10);
  });

  it('releases a lease given back within its time to live, so the bucket refills to the whole capacity again', async () => {
    const hash = randomBytes(32);
    const { check } = polled();
    await gate.remember(hash, { subscriberId: 'sub_q', paidUntilMs });
    await check(hash, '10.0.0.4');
    await check(hash, '10.0.0.4'); // 10 leased
    await check(hash, '10.0.0.4'); // from the lease
    // A new address is due for the tracker: the script, which takes the lease back first.
    await check(hash, '10.0.0.44');
    expect(await bucketField(hash, 'leased')).toBe(10); // a new lease of 10 (the old one released)
    expect(Math.floor(await bucketField(hash, 'tokens'))).toBe(48 + 9 - 1 - 10);
  });

  it('never lets the bucket and its leases hold more than the capacity, however long a lease is out', async () => {
    const hash = randomBytes(32);
    // A lease that certainly outlives the test, however slow the machine (set by config, as
    // RATE_LIMIT_LEASE_MS does): what is checked is the bucket while a lease is out.
    const { check } = polled({ ...DEFAULT_LEASE_POLICY, ttlMs: 60_000 });
    await gate.remember(hash, { subscriberId: 'sub_c', paidUntilMs });
    await check(hash, '10.0.0.3');
    await check(hash, '10.0.0.3');
    expect([Math.floor(await bucketField(hash, 'tokens')), await bucketField(hash, 'leased')]).toEqual([48, 10]);
    // Instead of waiting: the bucket last refilled 3 s ago by its own (Redis) clock, so it
    // would refill 15 tokens, more than the 12 that bring 48 to the capacity.
    const bucket = `${prefix}bucket:${hash.toString('hex')}`;
    await redis.hset(bucket, 'ts', String(Number(await redis.hget(bucket, 'ts')) - 3000));
    // Another replica bursting now finds the capacity less what is out on lease.
    const other = replica({ client: redis });
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 60 }, () => other.check(hash, '10.0.0.3')));
    // The capacity less the lease, plus what refills while the burst is answered: never the lease's 10 on top.
    expect(allowedOf(answers)).toBeGreaterThanOrEqual(50);
    expect(allowedOf(answers)).toBeLessThanOrEqual(50 + refilled(started, 5));
    expect(await bucketField(hash, 'leased')).toBe(10);
  });

  it('stops serving a revoked key from its lease once told (the revocation fact)', async () => {
    const hash = randomBytes(32);
    const { check, access } = polled();
    await gate.remember(hash, { subscriberId: 'sub_v', paidUntilMs });
    expect(await check(hash, '10.0.0.7')).toMatchObject({ state: 'ok' });
    expect(await check(hash, '10.0.0.7')).toMatchObject({ state: 'ok' }); // leased
    await tombstoneKey(redis, prefix, hash); // billing or the CLI writes the tombstone
    expect(await check(hash, '10.0.0.7')).toMatchObject({ state: 'ok' }); // its lease still serves...
    access.forget(hash.toString('hex')); // ...until the announcement (or access.key.revoked) arrives
    expect(await check(hash, '10.0.0.7')).toEqual({ state: 'invalid' });
  });

  it.each([1, 2])('gives requests sent together on %i replica(s) the burst of 60 (plus what refills meanwhile), and rejects the rest with Retry-After 1', async (n) => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_c1', paidUntilMs });
    const replicas = n === 1 ? [replica()] : [replica(), replica()];
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 90 }, (_, i) => replicas[i % n]!.check(hash, '10.0.1.1')));
    const allowed = allowedOf(answers);
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + refilled(started, 5));
    const rejected = answers.filter((r) => r.state === 'ok' && !r.decision.allowed);
    expect(rejected).toHaveLength(90 - allowed);
    for (const r of rejected) expect(r).toMatchObject({ state: 'ok', decision: { allowed: false, remaining: 0, retryAfterSeconds: 1 } });
  });

  it.each([1, 2])('serves a burst sent together at a steadily polled key, on %i replica(s), from its lease and the shared bucket: every token once', async (n) => {
    const hash = randomBytes(32);
    const steady = polled();
    await gate.remember(hash, { subscriberId: 'sub_c2', paidUntilMs });
    const started = Date.now();
    await steady.check(hash, '10.0.1.2');
    await steady.check(hash, '10.0.1.2'); // 48 in Redis, 10 leased to `steady`
    expect(await bucketField(hash, 'leased')).toBe(10);
    // The burst on the polled replica (and, on two, half of it on another): the lease is on
    // the replica that sends at least 10 of it, so every token is in reach.
    const replicas = n === 1 ? [steady] : [steady, replica()];
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => replicas[i % n]!.check(hash, '10.0.1.2')));
    const allowed = allowedOf(answers);
    expect(allowed).toBeGreaterThanOrEqual(58);
    expect(allowed).toBeLessThanOrEqual(58 + refilled(started, 5));
  });

  it.each([1, 2])('limits public endpoints per address for requests sent together on %i replica(s)', async (n) => {
    const ip = `192.0.2.${randomBytes(1)[0]}`;
    const replicas = n === 1 ? [replica()] : [replica(), replica()];
    await replicas[0]!.access.admitAddress(`${ip}-warm`); // the script is loaded before the clock starts
    const ipKey = `${ip}-${n}`;
    const started = Date.now();
    const decisions = await Promise.all(
      Array.from({ length: 130 }, (_, i) =>
        replicas[i % n]!.access.admitAddress(ipKey).then(
          (d) => d,
          (error: unknown) => (error as RateLimitedWithDecision).decision,
        ),
      ),
    );
    const allowed = decisions.filter((d) => d.allowed).length;
    expect(allowed).toBeGreaterThanOrEqual(100);
    expect(allowed).toBeLessThanOrEqual(100 + refilled(started, 20));
  });
});
