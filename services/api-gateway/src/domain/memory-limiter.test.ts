import { MemoryLimiter } from './memory-limiter';
import { KEY_POLICY } from './token-bucket';

describe('MemoryLimiter', () => {
  it('enforces the key policy per key: the burst, then one token per 200 ms', () => {
    let now = 0;
    const limiter = new MemoryLimiter(() => now);
    const allowed = Array.from({ length: 61 }, () => limiter.take(KEY_POLICY, 'a').allowed);
    expect(allowed.filter(Boolean)).toHaveLength(60);
    expect(limiter.take(KEY_POLICY, 'b').allowed).toBe(true);
    now += 200;
    expect(limiter.take(KEY_POLICY, 'a').allowed).toBe(true);
    expect(limiter.take(KEY_POLICY, 'a').allowed).toBe(false);
  });

  it('forgets buckets that have refilled, so memory stays bounded', () => {
    let now = 0;
    const limiter = new MemoryLimiter(() => now);
    for (let i = 0; i < 1000; i++) limiter.take(KEY_POLICY, `k${i}`);
    now += 13_000;
    limiter.take(KEY_POLICY, 'fresh');
    expect(limiter.size).toBe(1);
  });

  it('answers allows() as peek() does, without taking tokens', () => {
    let now = 0;
    const limiter = new MemoryLimiter(() => now);
    const policy = { capacity: 3, refillPerSecond: 0.5 };
    for (let step = 0; step < 40; step++) {
      expect([step, limiter.allows(policy, 'a', 2)]).toEqual([step, limiter.peek(policy, 'a', 2).allowed]);
      expect(limiter.allows(policy, 'never-seen')).toBe(true);
      if (step % 3 !== 2) limiter.take(policy, 'a');
      now += 700;
    }
  });
});
