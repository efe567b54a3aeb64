import fc from 'fast-check';
import { SOL, flatRound, round } from '../testing/fixtures';
import { bigRoundFlags } from './big-rounds';
import { History } from './history';
import { squareOrder } from './square-orders';

describe('History', () => {
  it('stores rounds in columns, keeps voided rounds as -1 and counts ordinals of settled rounds', () => {
    const h = History.from([round(5, 2, Array.from({ length: 25 }, (_, s) => s * 10), Array(25).fill(2)), flatRound(7, null), flatRound(9, 24)]);
    expect(h.length).toBe(3);
    expect(h.settledCount).toBe(2);
    expect(Array.from(h.ids.subarray(0, 3))).toEqual([5, 7, 9]);
    expect(Array.from(h.winning.subarray(0, 3))).toEqual([2, -1, 24]);
    expect(Array.from(h.ordinals.subarray(0, 3))).toEqual([0, 1, 1]);
    expect(h.deployed[3]).toBe(30);
    expect(h.sumDeployed[0]).toBe(3000);
    expect(h.winnerDeployed[0]).toBe(20);
    expect(h.winnerDeployed[1]).toBe(0);
    expect(h.totalMiners[0]).toBe(50);
    expect(h.roundAt(1)).toMatchObject({ id: 7, winningSquare: null });
    expect(h.lastId).toBe(9);
  });

  it('grows by doubling and keeps what it held', () => {
    const h = new History(2);
    for (let id = 1; id <= 9; id++) h.append(flatRound(id, id % 25));
    expect(h.capacity).toBe(16);
    expect(h.roundAt(0)).toEqual({ ...flatRound(1, 1), deployed: Array(25).fill(SOL), count: Array(25).fill(1) });
    expect(h.roundAt(8).winningSquare).toBe(9);
  });

  it('finds rounds by id (gaps included)', () => {
    const h = History.from([flatRound(10, 0), flatRound(20, 0), flatRound(30, 0)]);
    expect(h.indexOf(20)).toBe(1);
    expect(h.indexOf(25)).toBe(-1);
    expect(h.lowerBound(25)).toBe(2);
    expect(h.lowerBound(31)).toBe(3);
  });

  it('refuses rounds out of order or malformed', () => {
    const h = History.from([flatRound(10, 0)]);
    expect(() => h.append(flatRound(10, 1))).toThrow(/ids must increase/);
    expect(() => h.append({ ...flatRound(11, 1), deployed: Array(24).fill(1) })).toThrow(/25 entries/);
    expect(() => h.append({ ...flatRound(11, 1), winningSquare: 25 })).toThrow(/winningSquare/);
    expect(() => h.append({ ...flatRound(11, 1), deployed: [1.5, ...Array(24).fill(1)] })).toThrow(/deployed\[0\]/);
    expect(() => h.append({ ...flatRound(11, 1), count: [-1, ...Array(24).fill(1)] })).toThrow(/count\[0\]/);
    expect(h.length).toBe(1);
  });
});

describe('derived columns', () => {
  it('orders every round by deployed SOL and by miners, ties by lower square', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 25, maxLength: 25 }), { minLength: 1, maxLength: 20 }), (rows) => {
        const h = History.from(rows.map((d, i) => round(i + 1, 0, d, d)));
        const byDeployed = squareOrder(h, 'deployed');
        const byCount = squareOrder(h, 'count');
        rows.forEach((d, i) => {
          const expected = Array.from({ length: 25 }, (_, s) => s).sort((a, b) => d[a]! - d[b]! || a - b);
          expect(Array.from(byDeployed.subarray(i * 25, i * 25 + 25))).toEqual(expected);
          expect(Array.from(byCount.subarray(i * 25, i * 25 + 25))).toEqual(expected);
        });
      }),
    );
  });

  it('extends derived orders and big_round flags as the history grows', () => {
    const h = History.from(Array.from({ length: 100 }, (_, i) => flatRound(i + 1, 0)));
    expect(Array.from(bigRoundFlags(h).subarray(0, 100)).every((f) => f === 0)).toBe(true);
    h.append(round(101, 0, Array(25).fill(2 * SOL)));
    h.append(round(102, 0, [1, ...Array(24).fill(0)]));
    expect(bigRoundFlags(h)[100]).toBe(1);
    expect(Array.from(squareOrder(h, 'deployed').subarray(101 * 25, 101 * 25 + 3))).toEqual([1, 2, 3]);
  });
});
