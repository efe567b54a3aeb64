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
});
