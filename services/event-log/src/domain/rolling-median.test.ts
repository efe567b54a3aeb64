import { RollingMedian } from './rolling-median';

function naiveMedian(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

describe('RollingMedian', () => {
  it('is null when empty and averages the middle pair of an even count', () => {
    const m = new RollingMedian(4);
    expect(m.median()).toBeNull();
    m.push(7);
    expect(m.median()).toBe(7);
    m.push(1);
    expect(m.median()).toBe(4);
    m.push(3);
    expect(m.median()).toBe(3);
  });

  it('matches a sort-based median over a sliding window with duplicates', () => {
    for (const capacity of [1, 2, 7, 1000]) {
      const m = new RollingMedian(capacity);
      const all: number[] = [];
      let seed = capacity;
      for (let i = 0; i < 5_000; i++) {
        seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
        const v = seed % 50; // few distinct values: many duplicates to evict
        m.push(v * 1_000_000_007);
        all.push(v * 1_000_000_007);
        const window = all.slice(-capacity);
        expect(m.size).toBe(window.length);
        if (i % 97 === 0 || capacity < 10) expect(m.median()).toBe(naiveMedian(window));
      }
      expect(m.values()).toEqual(all.slice(-capacity));
    }
  });

  it('is restored by pushing its values into an empty window', () => {
    const m = new RollingMedian(3);
    [5, 9, 1, 4, 8].forEach((v) => m.push(v));
    const copy = new RollingMedian(3);
    m.values().forEach((v) => copy.push(v));
    expect(copy.values()).toEqual([1, 4, 8]);
    expect(copy.median()).toBe(m.median());
  });

  it('rejects a bad capacity or value', () => {
    expect(() => new RollingMedian(0)).toThrow(RangeError);
    expect(() => new RollingMedian(1).push(Number.NaN)).toThrow(RangeError);
  });
});
