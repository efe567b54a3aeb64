import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { tombstoneKey } from '@gridlab/key-cache';
import { RedisGate } from '../src/adapters/redis/redis-gate';
import type { CachedKey } from '../src/app/ports';
import { DEFAULT_LEASE_POLICY } from '../src/domain/token-lease';
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

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  await redis.quit();
});

describe('RedisGate', () => {
  it('reports a cache miss for a key it has never seen, without creating a bucket', async () => {
    const hash = randomBytes(32);
    expect(await gate.check(hash, '10.0.0.1')).toEqual({ state: 'miss' });
    expect(await redis.exists(`${prefix}bucket:${hash.toString('hex')}`)).toBe(0);
  });

  it('allows the burst of 60 (plus what refills meanwhile), then rejects with Retry-After 1', async () => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_x', paidUntilMs });
    const started = Date.now();
    let allowed = 0;
    let rejected;
    for (let i = 0; i < 400 && rejected === undefined; i++) {
      const r = await gate.check(hash, '10.0.0.1');
      if (r.state === 'ok' && r.decision.allowed) allowed++;
      else rejected = r;
    }
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + Math.ceil(((Date.now() - started) / 1000) * 5));
    expect(rejected).toMatchObject({ state: 'ok', subscriberId: 'sub_x', decision: { allowed: false, remaining: 0, retryAfterSeconds: 1 } });
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
        const r = await g.check(hash, '10.0.0.2');
        if (r.state === 'ok' && r.decision.allowed) allowed++;
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
    expect(await gate.check(hash, '10.0.0.1')).toMatchObject({ state: 'expired', subscriberId: 'sub_z' });
    expect(await redis.exists(`${prefix}bucket:${hash.toString('hex')}`)).toBe(0);
  });

  it('keeps a revoked key revoked even if a stale fill races the revocation', async () => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_r', paidUntilMs });
    await tombstoneKey(redis, prefix, hash);
    await gate.remember(hash, { subscriberId: 'sub_r', paidUntilMs });
    expect(await gate.check(hash, '10.0.0.1')).toEqual({ state: 'invalid' });
  });

  it('flags a key used from more than 3 addresses once per window, recording each address at most every minute (a fifth of the window)', async () => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_s', paidUntilMs });
    const flags = [];
    for (const ip of ['1.1.1.1', '2.2.2.2', '3.3.3.3', '3.3.3.3', '4.4.4.4', '5.5.5.5']) {
      const r = await gate.check(hash, ip);
      if (r.state === 'ok') flags.push([r.distinctAddresses, r.newlyFlagged]);
    }
    expect(flags).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [-1, false], // 3.3.3.3 again within the minute: only the bucket is touched
      [4, true],
      [5, false],
    ]);
  });

  it('records a pair in use again once a fifth of the window has passed', async () => {
    const hash = randomBytes(32);
    let now = Date.now();
    const client = new Redis(REDIS_URL);
    clients.push(client);
    const clocked = new RedisGate(client, options, () => now);
    await clocked.remember(hash, { subscriberId: 'sub_t', paidUntilMs });
    const seen = async () => {
      const r = await clocked.check(hash, '10.0.0.6');
      return r.state === 'ok' ? r.distinctAddresses : r.state;
    };
    expect(await seen()).toBe(1);
    now += options.sharingWindowMs / 5 - 1; // past the lease, not yet due: the bucket only
    expect(await seen()).toBe(-1);
    now += 1;
    expect(await seen()).toBe(1);
  });

  it('records an address seen first on a cache miss once the key is cached', async () => {
    const hash = randomBytes(32);
    expect(await gate.check(hash, '9.9.9.1')).toEqual({ state: 'miss' });
    await gate.remember(hash, { subscriberId: 'sub_m', paidUntilMs });
    expect(await gate.check(hash, '9.9.9.1')).toMatchObject({ state: 'ok', distinctAddresses: 1 });
  });

  /** A gate whose clock moves a lease gap per request: a key polled steadily, as leases are for. */
  function polledGate() {
    let now = Date.now();
    const client = new Redis(REDIS_URL);
    clients.push(client);
    const polled = new RedisGate(client, options, () => now);
    const calls = jest.spyOn(client as unknown as { gridlabGate: (...args: unknown[]) => Promise<unknown> }, 'gridlabGate');
    const check = (hash: Buffer, address: string) => {
      now += DEFAULT_LEASE_POLICY.minGapMs;
      return polled.check(hash, address);
    };
    return { gate: polled, check, calls, client, advance: (ms: number) => (now += ms) };
  }

  const bucketField = async (hash: Buffer, field: string) => Number(await redis.hget(`${prefix}bucket:${hash.toString('hex')}`, field));

  it('serves a steadily polled key from a lease of its tokens: one script call per lease, exact near the limit', async () => {
    const hash = randomBytes(32);
    const { gate: leased, check, calls } = polledGate();
    await leased.remember(hash, { subscriberId: 'sub_l', paidUntilMs });
    const remaining: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await check(hash, '10.0.0.9');
      if (r.state === 'ok' && r.decision.allowed) remaining.push(r.decision.remaining);
    }
    // A key's first request has no pace yet: 60 - 1. The second takes one and leases 10
    // (48 left in Redis, 10 counted as out on lease): the next 10 requests need no call.
    expect(calls).toHaveBeenCalledTimes(2);
    // Served from the lease: its tokens left plus the shared bucket's 48 and what it
    // refilled since, by this gate's clock (a gap per request, 5 tokens a second).
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
    expect(calls.mock.calls.length).toBeLessThan(allowed);
  });

  it('leases nothing to a key whose requests come back to back or together', async () => {
    const hash = randomBytes(32);
    const client = new Redis(REDIS_URL);
    clients.push(client);
    const gate = new RedisGate(client, options);
    await gate.remember(hash, { subscriberId: 'sub_b', paidUntilMs });
    for (let i = 0; i < 5; i++) await gate.check(hash, '10.0.0.5');
    await Promise.all(Array.from({ length: 5 }, () => gate.check(hash, '10.0.0.5')));
    expect(Number(await redis.hexists(`${prefix}bucket:${hash.toString('hex')}`, 'leased'))).toBe(0);
  });

  it('gives a lease\'s unused tokens back with the next call, and counts an expired lease until the bucket\'s own clock ends it', async () => {
    const hash = randomBytes(32);
    const { gate: leased, check, advance } = polledGate();
    await leased.remember(hash, { subscriberId: 'sub_g', paidUntilMs });
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
    const { gate: leased, check } = polledGate();
    await leased.remember(hash, { subscriberId: 'sub_q', paidUntilMs });
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
    let now = Date.now();
    const client = new Redis(REDIS_URL);
    clients.push(client);
    const leased = new RedisGate(client, { ...options, lease: { ...DEFAULT_LEASE_POLICY, ttlMs: 60_000 } }, () => (now += DEFAULT_LEASE_POLICY.minGapMs));
    await leased.remember(hash, { subscriberId: 'sub_c', paidUntilMs });
    await leased.check(hash, '10.0.0.3');
    await leased.check(hash, '10.0.0.3');
    expect([Math.floor(await bucketField(hash, 'tokens')), await bucketField(hash, 'leased')]).toEqual([48, 10]);
    // Instead of waiting: the bucket last refilled 3 s ago by its own (Redis) clock, so it
    // would refill 15 tokens, more than the 12 that bring 48 to the capacity.
    const bucket = `${prefix}bucket:${hash.toString('hex')}`;
    await redis.hset(bucket, 'ts', String(Number(await redis.hget(bucket, 'ts')) - 3000));
    // Another replica bursting now finds the capacity less what is out on lease.
    const other = new RedisGate(redis, options);
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 60 }, () => other.check(hash, '10.0.0.3')));
    const served = answers.filter((r) => r.state === 'ok' && r.decision.allowed).length;
    // The capacity less the lease, plus what refills while the burst is answered: never the lease's 10 on top.
    expect(served).toBeGreaterThanOrEqual(50);
    expect(served).toBeLessThanOrEqual(50 + refilled(started, 5));
    expect(await bucketField(hash, 'leased')).toBe(10);
  });

  it('stops serving a revoked key from its lease once told (the revocation fact)', async () => {
    const hash = randomBytes(32);
    const { gate: leased, check } = polledGate();
    await leased.remember(hash, { subscriberId: 'sub_v', paidUntilMs });
    expect(await check(hash, '10.0.0.7')).toMatchObject({ state: 'ok' });
    expect(await check(hash, '10.0.0.7')).toMatchObject({ state: 'ok' }); // leased
    await tombstoneKey(redis, prefix, hash); // billing or the CLI writes the tombstone
    expect(await check(hash, '10.0.0.7')).toMatchObject({ state: 'ok' }); // its lease still serves...
    leased.forget(hash.toString('hex')); // ...until the announcement (or access.key.revoked) arrives
    expect(await check(hash, '10.0.0.7')).toEqual({ state: 'invalid' });
  });

  /** A RedisGate on a Redis connection of its own: another gateway replica. */
  function replica(): RedisGate {
    const client = new Redis(REDIS_URL);
    clients.push(client);
    return new RedisGate(client, options);
  }
  const allowedOf = (answers: readonly CachedKey[]): number => answers.filter((r) => r.state === 'ok' && r.decision.allowed).length;

  it.each([1, 2])('gives requests sent together on %i replica(s) the burst of 60 (plus what refills meanwhile), and rejects the rest with Retry-After 1', async (n) => {
    const hash = randomBytes(32);
    await gate.remember(hash, { subscriberId: 'sub_c1', paidUntilMs });
    const gates = n === 1 ? [gate] : [gate, replica()];
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 90 }, (_, i) => gates[i % n]!.check(hash, '10.0.1.1')));
    const allowed = allowedOf(answers);
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + refilled(started, 5));
    const rejected = answers.filter((r) => r.state === 'ok' && !r.decision.allowed);
    expect(rejected).toHaveLength(90 - allowed);
    for (const r of rejected) expect(r).toMatchObject({ state: 'ok', subscriberId: 'sub_c1', decision: { allowed: false, remaining: 0, retryAfterSeconds: 1 } });
  });

  it.each([1, 2])('serves a burst sent together at a steadily polled key, on %i replica(s), from its lease and the shared bucket: every token once', async (n) => {
    const hash = randomBytes(32);
    const { gate: polled, check } = polledGate();
    await polled.remember(hash, { subscriberId: 'sub_c2', paidUntilMs });
    const started = Date.now();
    await check(hash, '10.0.1.2');
    await check(hash, '10.0.1.2'); // 48 in Redis, 10 leased to `polled`
    expect(await bucketField(hash, 'leased')).toBe(10);
    // The burst on the polled replica (and, on two, half of it on another): the lease is on
    // the replica that sends at least 10 of it, so every token is in reach.
    const gates = n === 1 ? [polled] : [polled, replica()];
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => gates[i % n]!.check(hash, '10.0.1.2')));
    const allowed = allowedOf(answers);
    expect(allowed).toBeGreaterThanOrEqual(58);
    expect(allowed).toBeLessThanOrEqual(58 + refilled(started, 5));
  });

  it.each([1, 2])('limits public endpoints per address for requests sent together on %i replica(s)', async (n) => {
    const ip = `192.0.2.${randomBytes(1)[0]}`;
    const gates = n === 1 ? [gate] : [gate, replica()];
    await gate.takeForAddress(IP_POLICY, `${ip}-warm`); // the script is loaded before the clock starts
    const ipKey = `${ip}-${n}`;
    const started = Date.now();
    const decisions = await Promise.all(Array.from({ length: 130 }, (_, i) => gates[i % n]!.takeForAddress(IP_POLICY, ipKey)));
    const allowed = decisions.filter((d) => d.allowed).length;
    expect(allowed).toBeGreaterThanOrEqual(100);
    expect(allowed).toBeLessThanOrEqual(100 + refilled(started, 20));
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
