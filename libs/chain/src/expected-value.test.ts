import fc from 'fast-check';
import { bestSquares, boardEv, squareEv, type EvRound } from './expected-value';
import { settleReturns, settleRound } from './settlement';

const SOL = 1_000_000_000;
const ORE = 100_000_000_000;
const empty = new Array<number>(25).fill(0);
const round = (fields: Partial<EvRound> = {}): EvRound => ({ deployed: empty, payoutRule: 'returns', oreReward: ORE, motherlodePool: 0, ...fields });

describe('squareEv, hand-computed', () => {
  it('an empty square under returns: 1% back on a win, 1% and 10% of the rest on a loss, 1/25 of the prize', () => {
    const ev = squareEv(round(), 7, SOL, 0.5 * SOL);
    // Win: 1e9 - 1e7 = 990,000,000. Lose: 990,000,000 - 99,000,000 = 891,000,000.
    expect(ev.expectedSolBack).toBe((990_000_000 + 24 * 891_000_000) / 25);
    expect(ev.expectedOre).toBe(ORE / 25);
    // 0.04 ORE at 0.5 SOL an ORE: 20,000,000 lamports.
    expect(ev.evLamports).toBeCloseTo(894_960_000 - SOL + 20_000_000, 6);
    expect(ev.evPerSol).toBeCloseTo(-0.08504, 10);
  });

  it('a whale square pays little ORE per SOL; an empty one the whole prize', () => {
    const deployed = empty.map((_, s) => (s === 3 ? 1000 * SOL : 0));
    const whale = squareEv(round({ deployed }), 3, SOL, 0);
    const alone = squareEv(round({ deployed }), 4, SOL, 0);
    expect(whale.expectedOre).toBeCloseTo(ORE / 25 / 1001, 6);
    expect(alone.expectedOre).toBe(ORE / 25);
  });

  it('the minimum fees take a one-lamport stake whole', () => {
    const ev = squareEv(round(), 0, 1, 0);
    expect(ev.expectedSolBack).toBe(0);
    expect(ev.evLamports).toBe(-1);
  });

  it('adds the motherlode pool one round in 500, and nothing when the pool is empty', () => {
    const withPool = squareEv(round({ motherlodePool: 500 * ORE }), 1, SOL, SOL);
    const without = squareEv(round({ motherlodePool: 0 }), 1, SOL, SOL);
    expect(withPool.expectedOre - without.expectedOre).toBeCloseTo(ORE / 25, 6);
  });

  it('parimutuel: the stake back less 1% and a share of the losing squares on a win, nothing on a loss', () => {
    const deployed = empty.map((_, s) => (s === 5 ? 3 * SOL : s === 9 ? 10 * SOL : 0));
    const ev = squareEv(round({ deployed, payoutRule: 'parimutuel' }), 5, SOL, 0);
    // Losing SOL 10: after 1%, 9.9; winnings 90% of it: 8.91 SOL shared by 4 SOL, of which ours is 1.
    const win = SOL - 10_000_000 + Math.floor((SOL * 8_910_000_000) / (4 * SOL));
    expect(ev.expectedSolBack).toBe(win / 25);
  });
});

/** The stake's payout for each of the 25 outcomes, from the whole round's settlement (settleReturns / settleRound). */
function bruteForce(r: EvRound, square: number, x: number, price: number): { solBack: number; ore: number } {
  const after = r.deployed.map((d, s) => (s === square ? d + x : d));
  const total = after[square]!;
  let sol = 0;
  let ore = 0;
  for (let w = 0; w < 25; w++) {
    if (r.payoutRule === 'returns') {
      // The square alone on a board: the rule's SOL returned on it is the round's total returned.
      const alone = after.map((d, s) => (s === square ? d : 0));
      const returned = settleReturns(alone, w === square ? square : (square + 1) % 25).totalWinnings;
      sol += Number((BigInt(x) * BigInt(returned)) / BigInt(total));
    } else if (w === square) {
      const winnings = settleRound(after, w).totalWinnings;
      sol += x - Math.max(1, Math.floor(x / 100)) + Number((BigInt(x) * BigInt(winnings)) / BigInt(total));
    }
    if (w === square) ore += (x / total) * (r.oreReward + r.motherlodePool / 500);
  }
  void price;
  return { solBack: sol / 25, ore: ore / 25 };
}

describe('squareEv against the 25 outcomes', () => {
  it('equals the average over every winning square of what the round\'s settlement pays the stake', () => {
    const lamports = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 50_000 * SOL }));
    fc.assert(
      fc.property(
        fc.record({
          deployed: fc.array(lamports, { minLength: 25, maxLength: 25 }),
          payoutRule: fc.constantFrom('returns' as const, 'parimutuel' as const),
          oreReward: fc.constantFrom(0, ORE, 37_000_000_000),
          motherlodePool: fc.integer({ min: 0, max: 2000 * ORE }),
        }),
        fc.integer({ min: 0, max: 24 }),
        fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 * SOL })),
        fc.integer({ min: 0, max: 10 * SOL }),
        (r, square, x, price) => {
          const ev = squareEv(r, square, x, price);
          const brute = bruteForce(r, square, x, price);
          expect(ev.expectedSolBack).toBeCloseTo(brute.solBack, 6);
          expect(ev.expectedOre).toBeCloseTo(brute.ore, 4);
          expect(ev.evLamports).toBeCloseTo(brute.solBack - x + (brute.ore * price) / ORE, 3);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('bestSquares', () => {
  it('ranks squares by EV, the emptiest first for the ORE, ties to the lower square', () => {
    const deployed = empty.map((_, s) => (s < 20 ? 5 * SOL : 0));
    const best = bestSquares(boardEv(round({ deployed }), SOL, SOL), 3);
    expect(best.map((e) => e.square)).toEqual([20, 21, 22]);
  });
});
