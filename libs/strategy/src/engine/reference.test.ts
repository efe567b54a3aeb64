import fc from 'fast-check';
import { normalizeDsl } from '../dsl/normalize';
import { BASE_STRATEGIES, FILTER_METRICS, FILTER_OPS, SIZING_MODES, type Dsl } from '../dsl/types';
import { History, type RoundInput } from '../history/history';
import { arbitraryHistory, arbitraryMixedHistory } from '../testing/fixtures';
import { referenceRun } from '../testing/reference';
import { createRunner } from './runner';

/** Random DSLs whose parameters make every rule, filter and stop fire within ~60 rounds. */
const arbitraryDsl = fc
  .record({
    base_strategy: fc.constantFrom(...BASE_STRATEGIES),
    sizing_mode: fc.constantFrom(...SIZING_MODES),
    bet_size_lamports: fc.oneof(fc.integer({ min: 1, max: 5_000_000 }), fc.integer({ min: 10_000_000, max: 200_000_000 })),
    num_squares: fc.integer({ min: 1, max: 25 }),
    drought_threshold: fc.integer({ min: 1, max: 30 }),
    hit_rate_lookback: fc.integer({ min: 50, max: 60 }),
    row_index: fc.integer({ min: 0, max: 4 }),
    column_index: fc.integer({ min: 0, max: 4 }),
    custom_squares: fc.array(fc.integer({ min: 0, max: 24 }), { minLength: 1, maxLength: 8 }),
    martingale_multiplier: fc.double({ min: 1, max: 3, noNaN: true }),
    loss_streak_threshold: fc.integer({ min: 1, max: 3 }),
    dalembert_step_lamports: fc.integer({ min: 1, max: 1_000_000 }),
    kelly_fraction: fc.double({ min: 0.0001, max: 1, noNaN: true }),
    kelly_bankroll_lamports: fc.integer({ min: 1, max: 5 * 1_000_000_000 }),
    max_bet_per_square_lamports: fc.oneof(fc.constant(100_000_000), fc.integer({ min: 1, max: 20_000_000 })),
    tx_fee_lamports: fc.integer({ min: 0, max: 100_000 }),
    stop_loss_streak: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    cooldown_after_loss_rounds: fc.integer({ min: 0, max: 3 }),
    take_profit_lamports: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_000_000_000 })),
    session_stop_loss_lamports: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200_000_000 })),
    filters: fc.array(
      fc.record({
        metric: fc.constantFrom(...FILTER_METRICS),
        op: fc.constantFrom(...FILTER_OPS),
        value: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 100 })),
      }),
      { maxLength: 3 },
    ),
  })
  .map(({ base_strategy, filters, stop_loss_streak, ...params }) =>
    normalizeDsl({ base_strategy, params: { ...params, ...(stop_loss_streak === undefined ? {} : { stop_loss_streak }) }, filters }),
  );

/**
 * Runs `dsl` from `from` stepped round by round, and fused (runTo) with and without the
 * precomputed rankings, and checks each against the naive reference: decisions, PnL,
 * exits, totals, the ORE earned and the SOL-only part of the PnL.
 */
function checkAgainstReference(rounds: RoundInput[], dsl: Dsl, startSeed: number): void {
  const from = startSeed % rounds.length;
  const expected = referenceRun(dsl, rounds, from);

  // Stepped one round at a time, the decision of each round is visible.
  const history = History.from(rounds);
  const stepped = createRunner(dsl, history);
  stepped.seek(from);
  const decisions = [];
  for (let i = from; i < rounds.length; i++) {
    const outcome = stepped.step();
    if (outcome.winningSquare !== null)
      decisions.push({ id: outcome.roundId, squares: outcome.decision.squares, stakes: outcome.decision.stakesLamports, pnl: outcome.pnlLamports, ore: BigInt(outcome.oreEarned), oreValue: outcome.oreValueLamports });
  }
  expect(decisions).toEqual(expected.rounds.map((r) => ({ id: r.id, squares: r.squares, stakes: r.stakes, pnl: r.pnl, ore: r.ore, oreValue: r.oreValue })));
  expect(stepped.summary().oreEarned).toBe(expected.ore.toString());
  expect(stepped.summary().solReturnedNetLamports).toBe(expected.solReturnedNet);

  // The fast loops over the same window agree, summary included.
  for (const precomputedRankings of [false, true]) {
    const fast = createRunner(dsl, history, { record: true, precomputedRankings });
    fast.seek(from);
    fast.runTo(history.length);
    const summary = fast.summary();
    expect(Array.from(fast.stats.recordedPnl.subarray(0, fast.stats.recorded))).toEqual(expected.rounds.map((r) => r.pnl));
    expect(summary.netProfitLamports).toBe(expected.net);
    expect(summary.oreEarned).toBe(expected.ore.toString());
    expect(summary.solReturnedNetLamports).toBe(expected.solReturnedNet);
    expect(summary.exitedEarly).toBe(expected.exit);
    expect(summary.capHits).toBe(expected.rounds.filter((r) => r.capHit && r.squares.length > 0).length);
    expect(summary.roundsBet).toBe(expected.rounds.filter((r) => r.squares.length > 0).length);
    if (expected.exitRoundId !== null) expect(summary.exitRoundId).toBe(expected.exitRoundId);
    // Per-square figures match the stepped run's (both settle each square the same way).
    expect(summary.perSquare).toEqual(stepped.summary().perSquare);
  }
}

describe('the engine against a naive implementation of the SPEC', () => {
  it('bets the same squares and stakes, with the same PnL, exits and totals, from any starting point', () => {
    fc.assert(fc.property(arbitraryHistory(1, 60), arbitraryDsl, fc.nat(), checkAgainstReference), { numRuns: 400 });
  });

  it('agrees under both payout rules, over windows spanning the cutover to returns', () => {
    fc.assert(fc.property(arbitraryMixedHistory(1, 60), arbitraryDsl, fc.nat(), checkAgainstReference), { numRuns: 400 });
  });
});
