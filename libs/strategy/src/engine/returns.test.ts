import { normalizeDsl } from '../dsl/normalize';
import { History, type RoundInput } from '../history/history';
import { ORE, returnsRound, round } from '../testing/fixtures';
import { referenceRun } from '../testing/reference';
import fc from 'fast-check';
import { returnedLamports } from './payout';
import { createRunner } from './runner';

/**
 * SPEC 7.7 by hand: every figure below is worked out in the comment above it, from the
 * rule's text, not from the engine. Stakes go on fixed squares (custom_squares) so each
 * round's bet is known.
 */

/** 25 squares, all 0 except the given ones. */
function board(values: Record<number, number>): number[] {
  return Array.from({ length: 25 }, (_, s) => values[s] ?? 0);
}

/** Runs a flat custom_squares strategy over `rounds`; returns each round's outcome and the summary. */
function run(squares: number[], stake: number, rounds: RoundInput[], fee = 5000) {
  const dsl = normalizeDsl({ base_strategy: 'custom_squares', params: { custom_squares: squares, bet_size_lamports: stake, tx_fee_lamports: fee } });
  const history = History.from(rounds);
  const runner = createRunner(dsl, history);
  const outcomes = rounds.map(() => runner.step());
  // The fused loop and the reference agree with the stepped runner on every case here.
  const fast = createRunner(dsl, history, { record: true });
  fast.runTo(history.length);
  const reference = referenceRun(dsl, rounds);
  expect(Array.from(fast.stats.recordedPnl.subarray(0, fast.stats.recorded))).toEqual(outcomes.map((o) => o.pnlLamports));
  expect(reference.rounds.map((r) => r.pnl)).toEqual(outcomes.map((o) => o.pnlLamports));
  expect(fast.summary()).toEqual(runner.summary());
  return { outcomes, summary: runner.summary() };
}

// Slot hashes whose rng, bit-reversed, is the given number (first LE u64 = the rng, the
// other three zero): reverse_bits(0x0000_0000_389F_D980) = 0x019B_F91C_0000_0000, etc.
const REV_950_000_000 = '000000001cf99b01' + '00'.repeat(24);
const REV_899_999_999 = '00000000ac2517ff' + '00'.repeat(24);
const REV_900_000_000 = '00000000ac259700' + '00'.repeat(24);

const S = 100_000_000; // 0.1 SOL on each of squares 3 and 7
const D = board({ 3: 900_000_000, 7: 400_000_000, 12: 2_000_000_000 });

describe('returns rule, by hand (SPEC 7.7)', () => {
  it('a win on a split round: SOL back per square plus the pro-rata ORE at the production cost', () => {
    // Square 3 wins: t = 9e8 + 1e8 = 1e9, admin = 1e7, back = floor(1e8 * 990e6 / 1e9) = 99,000,000.
    // Square 7 loses: t = 5e8, admin = 5e6, protocol = floor(495e6 / 10) = 49.5e6,
    //   back = floor(1e8 * 445.5e6 / 5e8) = 89,100,000.
    // ORE (split): floor(1e11 * 1e8 / 1e9) = 1e10; at 0.3 SOL/ORE: floor(1e10 * 3e8 / 1e11) = 30,000,000.
    // pnl = 99,000,000 + 89,100,000 + 30,000,000 - 200,000,000 - 5,000 = 18,095,000.
    const { outcomes, summary } = run([3, 7], S, [returnsRound(1, 3, D, { split: true, productionCost: 300_000_000 })]);
    expect(outcomes[0]).toMatchObject({ pnlLamports: 18_095_000, oreEarned: 10_000_000_000, oreValueLamports: 30_000_000, payoutLamports: 218_100_000, hit: true });
    expect(summary.oreEarned).toBe('10000000000');
    // SOL only: 188,100,000 - 200,000,000 - 5,000.
    expect(summary.solReturnedNetLamports).toBe(-11_905_000);
    expect(summary.netProfitLamports).toBe(18_095_000);
    // Per square: back - stake (+ the ORE value on the winner), fees excluded.
    expect(summary.perSquare[3]).toEqual({ square: 3, betCount: 1, winCount: 1, netLamports: 29_000_000 });
    expect(summary.perSquare[7]).toEqual({ square: 7, betCount: 1, winCount: 0, netLamports: -10_900_000 });
  });

  it('a loss: both squares pay admin and protocol fees, no ORE', () => {
    // Square 12 wins. Square 3: t = 1e9, admin = 1e7, protocol = 99e6, back = floor(1e8 * 891e6 / 1e9) = 89,100,000.
    // Square 7: as above, 89,100,000. pnl = 178,200,000 - 200,000,000 - 5,000 = -21,805,000.
    const { outcomes, summary } = run([3, 7], S, [returnsRound(1, 12, D)]);
    expect(outcomes[0]).toMatchObject({ pnlLamports: -21_805_000, oreEarned: 0, hit: false });
    expect(summary).toMatchObject({ oreEarned: '0', solReturnedNetLamports: -21_805_000, maxStreak: 1 });
    expect(summary.perSquare[3]!.netLamports).toBe(-10_900_000);
  });

  it('the top-miner draw: reverse_bits(rng) % (D_w + S_w) >= D_w wins the whole reward, our stake placed last', () => {
    // n = 9e8 + 1e8 = 1e9, D_w = 9e8. SOL back as in the split case: 188,100,000.
    // Won (950,000,000 >= 900,000,000): ORE = 1e11, worth floor(1e11 * 3e8 / 1e11) = 300,000,000:
    //   pnl = 188,100,000 + 300,000,000 - 200,005,000 = 288,095,000.
    // Won at the boundary (900,000,000 % 1e9 = 900,000,000 >= 900,000,000): the same.
    // Lost (899,999,999 < 900,000,000): pnl = 188,100,000 - 200,005,000 = -11,905,000.
    const drawn = (id: number, slotHash: string): RoundInput => returnsRound(id, 3, D, { split: false, slotHash });
    const { outcomes, summary } = run([3, 7], S, [drawn(1, REV_950_000_000), drawn(2, REV_900_000_000), drawn(3, REV_899_999_999)]);
    expect(outcomes.map((o) => [o.pnlLamports, o.oreEarned])).toEqual([
      [288_095_000, ORE],
      [288_095_000, ORE],
      [-11_905_000, 0],
    ]);
    expect(summary.oreEarned).toBe('200000000000');
    expect(summary.solReturnedNetLamports).toBe(3 * -11_905_000);
  });

  it('the motherlode is shared pro rata on top of the reward; an unknown production cost values ORE at 0', () => {
    // Split reward 1e10 (as above) + motherlode floor(20 ORE * 1e8 / 1e9) = floor(2e12 / 10) = 2e11: ORE 2.1e11,
    //   worth floor(2.1e11 * 3e8 / 1e11) = 630,000,000; pnl = 188,100,000 + 630,000,000 - 200,005,000 = 618,095,000.
    // Round 2, the same without a production cost: ORE 2.1e11 earned, worth 0: pnl = -11,905,000.
    const { outcomes, summary } = run([3, 7], S, [
      returnsRound(1, 3, D, { split: true, motherlode: 20 * ORE }),
      returnsRound(2, 3, D, { split: true, motherlode: 20 * ORE, productionCost: null }),
    ]);
    expect(outcomes.map((o) => [o.pnlLamports, o.oreEarned, o.oreValueLamports])).toEqual([
      [618_095_000, 210_000_000_000, 630_000_000],
      [-11_905_000, 210_000_000_000, 0],
    ]);
    expect(summary.oreEarned).toBe('420000000000');
    expect(summary.solReturnedNetLamports).toBe(2 * -11_905_000);
    expect(summary.netProfitLamports).toBe(618_095_000 - 11_905_000);
  });

  it('minimum fees: t < 100 pays an admin fee of 1, (t - admin) < 10 a protocol fee of 1, never below 0 back', () => {
    // Stake 50, others 30 (t = 80): winner back = floor(50 * 79 / 80) = 49; loser: protocol = max(1, floor(79/10)) = 7,
    //   back = floor(50 * 72 / 80) = 45. No ORE reward. pnl = 94 - 100 = -6 (no fee).
    // Stake 5, others 3 (t = 8): winner floor(5 * 7 / 8) = 4; loser: protocol = max(1, 0) = 1, floor(5 * 6 / 8) = 3. pnl = -3.
    // Stake 5 on an empty square (t = 5): loser admin 1, protocol 1, back floor(5 * 3 / 5) = 3.
    // Stake 1 alone (t = 1, losing): admin 1 and protocol 1 exceed it: back 0, not -1.
    const noOre = { oreReward: 0 };
    expect(run([0, 1], 50, [returnsRound(1, 0, board({ 0: 30, 1: 30 }), noOre)], 0).outcomes[0]!.pnlLamports).toBe(-6);
    expect(run([0, 1], 5, [returnsRound(1, 0, board({ 0: 3, 1: 3 }), noOre)], 0).outcomes[0]!.pnlLamports).toBe(-3);
    expect(run([0, 1], 5, [returnsRound(1, 0, board({ 0: 3 }), noOre)], 0).outcomes[0]!.pnlLamports).toBe(4 + 3 - 10);
    expect(run([2], 1, [returnsRound(1, 0, board({ 0: 3 }), noOre)], 0).outcomes[0]!.pnlLamports).toBe(-1);
  });

  it('a window across the cutover prices each round by its own rule', () => {
    // Round 1 (parimutuel, square 3 wins): L = (4e8 + 1e8) + 2e9 (square 12) = 2.5e9,
    //   w = 2.5e9 - 2.5e7, total_winnings = w - w/10 = 2,227,500,000,
    //   payout = 1e8 - 1e6 + floor(2,227,500,000 * 1e8 / 1e9) = 99e6 + 222.75e6 = 321,750,000;
    //   pnl = 321,750,000 - 200,005,000 = 121,745,000.
    // Round 2 (returns, split, as the first case): 18,095,000.
    const { outcomes, summary } = run([3, 7], S, [round(1, 3, D), returnsRound(2, 3, D)]);
    expect(outcomes.map((o) => o.pnlLamports)).toEqual([121_745_000, 18_095_000]);
    expect(summary.oreEarned).toBe('10000000000');
    expect(summary.solReturnedNetLamports).toBe(121_745_000 - 11_905_000);
    // Per square: square 3 took 321,750,000 then 99,000,000 + 30,000,000 for 2e8 staked.
    expect(summary.perSquare[3]!.netLamports).toBe(321_750_000 + 129_000_000 - 200_000_000);
    expect(summary.perSquare[7]!.netLamports).toBe(-100_000_000 + 89_100_000 - 100_000_000);
  });

  it('products past 2^53 stay exact: a 1e8 stake on 5e9, the whole ORE at 1.23456789 SOL', () => {
    // t = 5.1e9: admin = 51e6, back = floor(1e8 * 5,049,000,000 / 5.1e9) = floor(99,000,000) = 99,000,000
    //   (1e8 * 5.049e9 = 5.049e17 > 2^53). ORE split: floor(1e11 * 1e8 / 5.1e9) = floor(1,960,784,313.7) = 1,960,784,313;
    //   value floor(1,960,784,313 * 1,234,567,890 / 1e11) = floor(24,207,213.6...) = 24,207,213.
    // pnl = 99,000,000 + 24,207,213 - 100,000,000 - 5,000 = 23,202,213.
    const big = board({ 9: 5_000_000_000 });
    const { outcomes } = run([9], S, [returnsRound(1, 9, big, { productionCost: 1_234_567_890 })]);
    expect(outcomes[0]).toMatchObject({ oreEarned: 1_960_784_313, oreValueLamports: 24_207_213, pnlLamports: 23_202_213 });
  });

  it('analytics randomOutcomes: a returns round\'s chance mean and variance are those of its 25 possible winners', () => {
    const dsl = normalizeDsl({ base_strategy: 'custom_squares', params: { custom_squares: [3, 7, 12], bet_size_lamports: S } });
    const deployed = board({ 3: 900_000_000, 7: 400_000_000, 12: 2_000_000_000, 20: 5 });
    const fields = { split: false, motherlode: 3 * ORE, slotHash: REV_950_000_000 };
    const runner = createRunner(dsl, History.from([returnsRound(1, 0, deployed, fields)]), { chanceMoments: true });
    runner.runTo(1);
    // The same round with each square winning in turn, priced by the reference.
    const pnls = Array.from({ length: 25 }, (_, w) => referenceRun(dsl, [returnsRound(1, w, deployed, fields)]).net);
    const mean = pnls.reduce((a, b) => a + b, 0) / 25;
    const variance = pnls.reduce((a, b) => a + (b - mean) ** 2, 0) / 25;
    expect(runner.stats.chanceMean).toBeCloseTo(mean, 3);
    expect(runner.stats.chanceVariance / variance).toBeCloseTo(1, 9);
  });

  it('returnedLamports equals the BigInt formula at every magnitude, past 2^52 included', () => {
    const big = (s: bigint, d: bigint, winner: boolean): number => {
      const t = d + s;
      const admin = t / 100n > 1n ? t / 100n : 1n;
      let kept = t - admin;
      if (!winner) kept -= kept / 10n > 1n ? kept / 10n : 1n;
      return kept <= 0n ? 0 : Number((s * kept) / t);
    };
    const magnitude = fc.integer({ min: 0, max: 52 }).chain((bits) => fc.integer({ min: 1, max: Math.max(1, 2 ** bits) }));
    fc.assert(
      fc.property(magnitude, fc.oneof(fc.constant(0), magnitude), fc.boolean(), (s, d, winner) => {
        expect(returnedLamports(s, d, winner)).toBe(big(BigInt(s), BigInt(d), winner));
      }),
      { numRuns: 5000 },
    );
    expect(returnedLamports(2 ** 52, 2 ** 52 - 7, true)).toBe(big(2n ** 52n, 2n ** 52n - 7n, true));
  });

  it('oreEarned stays exact past 2^53 (two motherlodes of 2^52 - 1 base units, alone on the square)', () => {
    // Nobody else on square 5: ore = R + M each round; 2 x (1e11 + 2^52 - 1) = 9,007,399,254,740,990 > 2^53.
    const M = 2 ** 52 - 1;
    const alone = board({ 12: 1_000_000_000 });
    const { summary } = run([5], S, [returnsRound(1, 5, alone, { motherlode: M, productionCost: 1 }), returnsRound(2, 5, alone, { motherlode: M, productionCost: 1 })]);
    expect(summary.oreEarned).toBe((2n * (100_000_000_000n + BigInt(M))).toString());
    expect(summary.oreEarned).toBe('9007399254740990');
  });
});
