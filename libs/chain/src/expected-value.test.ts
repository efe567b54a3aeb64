import fc from 'fast-check';
import { bestSquares, boardEv, squareEv, type EvRound } from './expected-value';
import { share } from './settlement';

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
    const solo = empty.map(() => false);
    const whale = squareEv(round({ deployed, splitSquares: solo }), 3, SOL, 0);
    const alone = squareEv(round({ deployed, splitSquares: solo }), 4, SOL, 0);
    expect(whale.expectedOre).toBeCloseTo(ORE / 25 / 1001, 6);
    expect(alone.expectedOre).toBe(ORE / 25);
  });

  it('floors a split prize and the motherlode share, as checkpoint pays them', () => {
    const deployed = empty.map((_, s) => (s === 3 ? 2 * SOL : 0));
    const split = empty.map(() => true);
    // floor(1e11 * 1e9 / 3e9) = 33,333,333,333; pool 7 ORE + 1 unit: floor(700,000,000,001 / 3) = 233,333,333,333.
    const ev = squareEv(round({ deployed, splitSquares: split, motherlodePool: 7 * ORE + 1 }), 3, SOL, 0);
    expect(ev.expectedOre).toBe((33_333_333_333 + 233_333_333_333 / 500) / 25);
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

/**
 * The oracle: what the program's checkpoint pays the stake in each of the 25 outcomes
 * and both motherlode draws, written here from `program/src/checkpoint.rs` and
 * `reset.rs` (3112ab7 for parimutuel, 70763fc for returns) in BigInt, importing nothing
 * of what it checks. Only the solo prize's draw is taken as its probability: the program
 * gives the whole prize to the miner whose cumulative range holds
 * `reverse_bits(rng) % T`, ours the last `x` of `T`.
 */
function oracle(r: EvRound, square: number, x: number): { solBack: number; ore: number } {
  const big = r.deployed.map((d, s) => BigInt(s === square ? d + x : d));
  const T = big[square]!;
  const X = BigInt(x);
  const max1 = (v: bigint) => (v > 1n ? v : 1n);
  const sat = (v: bigint) => (v > 0n ? v : 0n);
  let sol = 0;
  let ore = 0;
  for (let w = 0; w < 25; w++) {
    if (r.payoutRule === 'returns') {
      // checkpoint.rs@70763fc L93-97 (winning square) and L149-153 (any other).
      const admin = max1(T / 100n);
      const returned = w === square ? sat(T - admin) : sat(T - (admin + max1(sat(T - admin) / 10n)));
      sol += Number((X * returned) / T);
    } else if (w === square) {
      // reset.rs@3112ab7 L177-187, then checkpoint.rs@3112ab7 L84-91.
      const losing = big.reduce((a, b) => a + b, 0n) - T;
      const afterFee = losing - losing / 100n;
      const totalWinnings = afterFee - afterFee / 10n;
      sol += Number(X - max1(X / 100n) + (totalWinnings * X) / T);
    }
    if (w !== square) continue;
    const split = r.splitSquares?.[square];
    const splitPrize = Number((BigInt(r.oreReward) * X) / T);
    const soloPrize = (r.oreReward * x) / Number(T);
    ore += split === true ? splitPrize : split === false ? soloPrize : (splitPrize + soloPrize) / 2;
    // The motherlode draw hits one round in 500 and pays each miner floor(M * x / T).
    ore += Number((BigInt(r.motherlodePool) * X) / T) / 500;
  }
  return { solBack: sol / 25, ore: ore / 25 };
}

describe('squareEv against the program\'s payouts in every outcome', () => {
  it('equals the average over every winning square and motherlode draw of what checkpoint pays the stake', () => {
    const lamports = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 50_000 * SOL }));
    fc.assert(
      fc.property(
        fc.record({
          deployed: fc.array(lamports, { minLength: 25, maxLength: 25 }),
          payoutRule: fc.constantFrom('returns' as const, 'parimutuel' as const),
          oreReward: fc.constantFrom(0, ORE, 37_000_000_007),
          motherlodePool: fc.integer({ min: 0, max: 2000 * ORE }),
          splitSquares: fc.option(fc.array(fc.boolean(), { minLength: 25, maxLength: 25 })),
        }),
        fc.integer({ min: 0, max: 24 }),
        fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 * SOL })),
        fc.integer({ min: 0, max: 10 * SOL }),
        (r, square, x, price) => {
          const ev = squareEv(r, square, x, price);
          const truth = oracle(r, square, x);
          expect(ev.expectedSolBack).toBeCloseTo(truth.solBack, 6);
          expect(ev.expectedOre).toBeCloseTo(truth.ore, 4);
          expect(ev.evLamports).toBeCloseTo(truth.solBack - x + (truth.ore * price) / ORE, 3);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('share, the floored pro-rata share', () => {
  it('equals BigInt floor(stake * amount / total) everywhere, on and beside integer quotients', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 50 }), fc.integer({ min: 1, max: 2 ** 45 }), (stake, amount, total) => {
        expect(share(stake, amount, total)).toBe(Number((BigInt(stake) * BigInt(amount)) / BigInt(total)));
      }),
      { numRuns: 3000 },
    );
    // Totals chosen so the quotient lands on, just above or just below an integer n.
    fc.assert(
      fc.property(fc.integer({ min: 2 ** 26, max: 2 ** 40 }), fc.integer({ min: 2 ** 26, max: 2 ** 48 }), fc.integer({ min: 1, max: 2 ** 45 }), (stake, amount, n) => {
        const t0 = (BigInt(stake) * BigInt(amount)) / BigInt(n);
        for (const t of [t0 - 1n, t0, t0 + 1n]) {
          if (t < 1n || t > BigInt(Number.MAX_SAFE_INTEGER)) continue;
          expect(share(stake, amount, Number(t))).toBe(Number((BigInt(stake) * BigInt(amount)) / t));
        }
      }),
      { numRuns: 3000 },
    );
    // Exact integer quotients whose product a double cannot hold: its quotient may land a hair below.
    fc.assert(
      fc.property(fc.integer({ min: 2 ** 26, max: 2 ** 45 }), fc.integer({ min: 2 ** 20, max: 2 ** 45 }), (t, k) => {
        expect(share(t, k, t)).toBe(k);
        expect(share(k, t, t)).toBe(k);
      }),
      { numRuns: 3000 },
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
