import { ContiguousRounds, type SkippedIds } from './contiguous-rounds';

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
