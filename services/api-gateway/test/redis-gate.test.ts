import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { tombstoneKey } from '@gridlab/key-cache';
import { RedisGate } from '../src/adapters/redis/redis-gate';
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
const paidUntilMs = Date.now() + 86_400_000;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
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
    await client.quit();
  });

  it('records an address seen first on a cache miss once the key is cached', async () => {
    const hash = randomBytes(32);
    expect(await gate.check(hash, '9.9.9.1')).toEqual({ state: 'miss' });
    await gate.remember(hash, { subscriberId: 'sub_m', paidUntilMs });
    expect(await gate.check(hash, '9.9.9.1')).toMatchObject({ state: 'ok', distinctAddresses: 1 });
  });

  it('serves a busy key from a lease of its tokens: one script call per lease, exact near the limit', async () => {
    const hash = randomBytes(32);
    const client = new Redis(REDIS_URL);
    const leased = new RedisGate(client, options);
    const calls = jest.spyOn(client as unknown as { gridlabGate: (...args: unknown[]) => Promise<unknown> }, 'gridlabGate');
    await leased.remember(hash, { subscriberId: 'sub_l', paidUntilMs });
    const remaining: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await leased.check(hash, '10.0.0.9');
      if (r.state === 'ok' && r.decision.allowed) remaining.push(r.decision.remaining);
    }
    // 60 - 1, then 10 leased (49 left in Redis): the next 10 requests need no call.
    expect(calls).toHaveBeenCalledTimes(1);
    expect(remaining).toEqual([59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49]);
    const bucketKey = `${prefix}bucket:${hash.toString('hex')}`;
    expect(Math.floor(Number(await redis.hget(bucketKey, 'tokens')))).toBe(49);
    // Spend down to the limit: every token is granted once, the 429 comes exactly when the bucket is dry.
    let allowed = 11;
    const started = Date.now();
    for (let i = 0; i < 200; i++) {
      const r = await leased.check(hash, '10.0.0.9');
      if (r.state !== 'ok' || !r.decision.allowed) break;
      allowed++;
    }
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + Math.ceil(((Date.now() - started) / 1000 + 0.1) * 5));
    expect(calls.mock.calls.length).toBeLessThan(allowed);
    await client.quit();
  });

  it('gives an expired lease\'s unused tokens back with the next call', async () => {
    const hash = randomBytes(32);
    let now = Date.now();
    const client = new Redis(REDIS_URL);
    const leased = new RedisGate(client, options, () => now);
    await leased.remember(hash, { subscriberId: 'sub_g', paidUntilMs });
    await leased.check(hash, '10.0.0.8'); // 59 left, 10 of them leased
    await leased.check(hash, '10.0.0.8'); // from the lease: 9 unused
    now += DEFAULT_LEASE_POLICY.ttlMs; // the lease's time to live
    await leased.check(hash, '10.0.0.8'); // gives 9 back, takes 1, leases 10 again
    const tokens = Number(await redis.hget(`${prefix}bucket:${hash.toString('hex')}`, 'tokens'));
    expect(Math.floor(tokens)).toBe(49 + 9 - 1 - 10);
    await client.quit();
  });

  it('stops serving a revoked key from its lease once told (the revocation fact)', async () => {
    const hash = randomBytes(32);
    const client = new Redis(REDIS_URL);
    const leased = new RedisGate(client, options);
    await leased.remember(hash, { subscriberId: 'sub_v', paidUntilMs });
    expect(await leased.check(hash, '10.0.0.7')).toMatchObject({ state: 'ok' });
    await tombstoneKey(redis, prefix, hash); // billing or the CLI writes the tombstone
    expect(await leased.check(hash, '10.0.0.7')).toMatchObject({ state: 'ok' }); // its lease still serves...
    leased.forget(hash.toString('hex')); // ...until the announcement (or access.key.revoked) arrives
    expect(await leased.check(hash, '10.0.0.7')).toEqual({ state: 'invalid' });
    await client.quit();
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
