import fc from 'fast-check';
import { RankedSquares } from './ranked-squares';
import { RecencyList } from './recency-list';
import { StreakLengths } from './run-stats';
import { SortedWindow } from './sorted-window';

describe('SortedWindow', () => {
  it('ranks and takes medians over exactly the last `capacity` values', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 120 }), fc.integer({ min: -1, max: 21 }), (capacity, values, x) => {
        const window = new SortedWindow(capacity);
        values.forEach((v) => window.push(v));
        const last = values.slice(Math.max(0, values.length - capacity)).sort((a, b) => a - b);
        expect(window.size).toBe(last.length);
        expect(window.countAtMost(x)).toBe(last.filter((v) => v <= x).length);
        const m = last.length >> 1;
        const median = last.length === 0 ? Number.NaN : last.length % 2 ? last[m]! : (last[m - 1]! + last[m]!) / 2;
        expect(window.median()).toEqual(median);
      }),
    );
  });

  it('matches a sort-based median over a window of 1,000 with many duplicates, as blocks split and empty', () => {
    const window = new SortedWindow(1000);
    const all: number[] = [];
    let seed = 7;
    for (let i = 0; i < 5_000; i++) {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      // Few distinct values: many duplicates to evict. Lamport-sized, past 2^32.
      const v = (seed % 50) * 1_000_000_007;
      window.push(v);
      all.push(v);
      if (i % 97 === 0) {
        const last = all.slice(-1000).sort((a, b) => a - b);
        const m = last.length >> 1;
        expect(window.median()).toBe(last.length % 2 ? last[m]! : (last[m - 1]! + last[m]!) / 2);
      }
    }
    expect(window.values()).toEqual(all.slice(-1000));
  });

  it('is restored by pushing its values into an empty window', () => {
    const window = new SortedWindow(3);
    [5, 9, 1, 4, 8].forEach((v) => window.push(v));
    const copy = new SortedWindow(3);
    window.values().forEach((v) => copy.push(v));
    expect(copy.values()).toEqual([1, 4, 8]);
    expect(copy.median()).toBe(window.median());
    expect(new SortedWindow(4).values()).toEqual([]);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new SortedWindow(0)).toThrow(RangeError);
    expect(() => new SortedWindow(2.5)).toThrow(RangeError);
  });
});

describe('RankedSquares', () => {
  it('keeps the squares sorted by key (highest first, ties by lower square) through any changes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 24 }), fc.integer({ min: -5, max: 5 })), { maxLength: 200 }), (changes) => {
        const ranked = new RankedSquares();
        const keys = Array(25).fill(0) as number[];
        for (const [square, key] of changes) {
          ranked.set(square, key);
          keys[square] = key;
        }
        const expected = Array.from({ length: 25 }, (_, s) => s).sort((a, b) => keys[b]! - keys[a]! || a - b);
        expect(Array.from(ranked.order)).toEqual(expected);
        ranked.reset(keys);
        expect(Array.from(ranked.order)).toEqual(expected);
      }),
    );
  });
});

describe('RecencyList', () => {
  it('lists never-won squares first by index, then by last win', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 24 }), { maxLength: 80 }), (winners) => {
        const list = new RecencyList();
        const lastWin = Array(25).fill(-1) as number[];
        winners.forEach((w, t) => {
          list.touch(w);
          lastWin[w] = t;
        });
        const expected = Array.from({ length: 25 }, (_, s) => s).sort((a, b) => lastWin[a]! - lastWin[b]! || a - b);
        const forward: number[] = [];
        for (let s = list.first(); s < 25; s = list.after(s)) forward.push(s);
        const backward: number[] = [];
        for (let s = list.last(); s < 25; s = list.before(s)) backward.push(s);
        expect(forward).toEqual(expected);
        expect(backward).toEqual([...expected].reverse());
        const rebuilt = new RecencyList();
        rebuilt.rebuild(lastWin);
        const again: number[] = [];
        for (let s = rebuilt.first(); s < 25; s = rebuilt.after(s)) again.push(s);
        expect(again).toEqual(expected);
      }),
    );
  });
});

describe('StreakLengths', () => {
  it('keeps every pushed length in order past its growth points, the open streak last', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { maxLength: 1200 }), fc.integer({ min: 0, max: 50 }), (lengths, open) => {
        const list = new StreakLengths();
        lengths.forEach((n) => list.push(n));
        expect(list.length).toBe(lengths.length);
        expect(list.toArray(open)).toEqual(open > 0 ? [...lengths, open] : lengths);
      }),
      { numRuns: 50 },
    );
  });
});
