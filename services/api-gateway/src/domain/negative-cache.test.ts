import { NegativeCache } from './negative-cache';

describe('NegativeCache', () => {
  it('remembers a key for its TTL only', () => {
    let now = 1000;
    const cache = new NegativeCache(500, 10, () => now);
    cache.add('a');
    expect(cache.has('a')).toBe(true);
    now += 499;
    expect(cache.has('a')).toBe(true);
    now += 1;
    expect(cache.has('a')).toBe(false);
    expect(cache.size).toBe(0);
  });

  it('holds at most maxEntries, evicting the oldest first, whatever the flood', () => {
    const cache = new NegativeCache(60_000, 100, () => 0);
    for (let i = 0; i < 10_000; i++) cache.add(`k${i}`);
    expect(cache.size).toBe(100);
    expect(cache.has('k9899')).toBe(false);
    expect(cache.has('k9900')).toBe(true);
    expect(cache.has('k9999')).toBe(true);
  });

  it('re-adding a key refreshes its place and TTL; delete forgets it', () => {
    let now = 0;
    const cache = new NegativeCache(100, 2, () => now);
    cache.add('a');
    cache.add('b');
    now = 50;
    cache.add('a');
    cache.add('c'); // evicts b, the oldest
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
    cache.delete('a');
    expect(cache.has('a')).toBe(false);
  });
});
