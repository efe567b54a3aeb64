import { ContiguousReader, ContiguousRounds, type SkippedIds } from './contiguous-rounds';

const ids = (...xs: number[]) => xs.map((id) => ({ id }));

describe('ContiguousRounds', () => {
  it('takes the leading run of consecutive ids, from the first stored one when nothing was taken', () => {
    const gate = new ContiguousRounds(1000, () => undefined);
    expect(gate.take(null, ids(7, 8, 10), 0)).toEqual(ids(7, 8));
    expect(gate.take(8, ids(9, 10, 12), 0)).toEqual(ids(9, 10));
    expect(gate.take(8, [], 0)).toEqual([]);
  });

  it('holds rounds after a missing id back until it has been missing for the wait, then passes over it once', () => {
    const skipped: SkippedIds[] = [];
    const gate = new ContiguousRounds(1000, (s) => skipped.push(s));
    expect(gate.take(5, ids(8, 9), 0)).toEqual([]);
    expect(gate.take(5, ids(8, 9), 999)).toEqual([]);
    expect(skipped).toEqual([]);
    expect(gate.take(5, ids(8, 9), 1000)).toEqual(ids(8, 9));
    expect(skipped).toEqual([{ from: 6, to: 7 }]);
  });

  it('restarts the wait when the hole is filled or another one appears', () => {
    const skipped: SkippedIds[] = [];
    const gate = new ContiguousRounds(1000, (s) => skipped.push(s));
    expect(gate.take(5, ids(7), 0)).toEqual([]);
    expect(gate.take(5, ids(6, 7), 500)).toEqual(ids(6, 7));
    expect(gate.take(7, ids(9), 600)).toEqual([]);
    expect(gate.take(7, ids(9), 1500)).toEqual([]);
    expect(gate.take(7, ids(9), 1600)).toEqual(ids(9));
    expect(skipped).toEqual([{ from: 8, to: 8 }]);
  });
});

describe('ContiguousRounds with a history fill', () => {
  it('starts the run at the history floor and waits there, however long, while the indexer fills it', () => {
    const skipped: SkippedIds[] = [];
    const gate = new ContiguousRounds(1000, (s) => skipped.push(s));
    expect(gate.gapOf(null, ids(500, 501), 1)).toEqual({ from: 1, to: 499 });
    expect(gate.take(null, ids(500, 501), 0, { floor: 1, firstPending: 1 })).toEqual([]);
    expect(gate.take(null, ids(500, 501), 10_000_000, { floor: 1, firstPending: 1 })).toEqual([]);
    expect(gate.take(null, ids(1, 2, 500), 10_000_000, { floor: 1, firstPending: null })).toEqual(ids(1, 2));
    expect(skipped).toEqual([]);
  });

  it('passes over at once ids at or above the floor the indexer will never store', () => {
    const skipped: SkippedIds[] = [];
    const gate = new ContiguousRounds(1000, (s) => skipped.push(s));
    expect(gate.take(5, ids(8, 9), 0, { floor: 0, firstPending: null })).toEqual(ids(8, 9));
    expect(skipped).toEqual([{ from: 6, to: 7 }]);
  });

  it('keeps the timed wait for ids below the floor, which nobody fills', () => {
    const gate = new ContiguousRounds(1000, () => undefined);
    expect(gate.take(5, ids(8), 0, { floor: 100, firstPending: null })).toEqual([]);
    expect(gate.take(5, ids(8), 1000, { floor: 100, firstPending: null })).toEqual(ids(8));
  });

  it('starts at the first stored round when history was imported below the floor', () => {
    const gate = new ContiguousRounds(1000, () => undefined);
    expect(gate.gapOf(null, ids(3, 4), 10)).toBeNull();
    expect(gate.take(null, ids(3, 4), 0, { floor: 10, firstPending: null })).toEqual(ids(3, 4));
  });
});

describe('ContiguousReader', () => {
  it('reads after the last id taken and asks the fill state only about a hole', async () => {
    const stored = ids(1, 2, 4, 5);
    const reads: number[] = [];
    const asked: [number, number][] = [];
    const reader = new ContiguousReader(
      (fromId: number, limit: number) => {
        reads.push(fromId);
        return Promise.resolve(stored.filter((r) => r.id >= fromId).slice(0, limit));
      },
      {
        waitMs: 1000,
        onSkip: () => undefined,
        fill: { floor: () => Promise.resolve(1), firstPending: (from, to) => (asked.push([from, to]), Promise.resolve(from)) },
        now: () => 0,
      },
    );
    expect(await reader.after(null, 10)).toEqual(ids(1, 2));
    expect(asked).toEqual([]);
    expect(await reader.after(2, 10)).toEqual([]);
    expect(asked).toEqual([[3, 3]]);
    expect(reads).toEqual([0, 3]);
  });
});
