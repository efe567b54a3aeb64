import { syntheticRounds } from '@gridlab/testing';
import { History, backtest, createRunner, normalizeDsl } from '@gridlab/strategy';
import { addRound, emptyFigures, enterSession, equityCurve, figuresFromRow, ownerShort, statsRow, type Figures } from './figures';

// Parimutuel up to index 900, then returns: the forward window (500..1500) spans the cutover.
const ROUNDS = syntheticRounds(1500, { seed: 11, firstId: 100, voidedRate: 0.02, payoutRule: (i) => (i < 900 ? 'parimutuel' : 'returns') });

/** Steps a runner from round index `from` and folds each outcome into figures, as the writer does. */
function forward(dslInput: unknown, from: number, to: number) {
  const dsl = normalizeDsl(dslInput);
  const history = History.from(ROUNDS.slice(0, from));
  const runner = createRunner(dsl, history);
  runner.seek(history.length);
  const figures = emptyFigures('stg_x', 1);
  const series: { roundId: number; pnlLamports: number }[] = [];
  for (const round of ROUNDS.slice(from, to)) {
    const o = runner.step(round);
    addRound(figures, { roundId: o.roundId, winningSquare: o.winningSquare, bet: o.decision.bet, squares: o.decision.squares.length, stakeLamports: o.stakeLamports, pnlLamports: o.pnlLamports, hit: o.hit, oreEarned: o.oreEarned, oreValueLamports: o.oreValueLamports }, false);
    if (o.winningSquare !== null) series.push({ roundId: o.roundId, pnlLamports: o.pnlLamports });
    if (o.exit !== null) break;
  }
  return { figures, series, dsl, history };
}

describe('forward figures', () => {
  const DSLS = [
    { base_strategy: 'cold', params: { bet_size_lamports: 1_000_000, num_squares: 5 } },
    { base_strategy: 'hot', params: { bet_size_lamports: 2_000_000, num_squares: 3, sizing_mode: 'martingale', martingale_multiplier: 2, hit_rate_lookback: 50 } },
    { base_strategy: 'spread', params: { bet_size_lamports: 500_000, num_squares: 8, sizing_mode: 'fibonacci', cooldown_after_loss_rounds: 1 } },
    { base_strategy: 'corners', params: { bet_size_lamports: 1_000_000, stop_loss_streak: 6 } },
  ];

  it.each(DSLS)('equal a backtest of the same rounds, field by field (%o)', (input) => {
    const { figures, series, dsl } = forward(input, 500, 1500);
    // As stored, and as read back after a restart.
    const row = statsRow(figuresFromRow(statsRow(figures)));
    const last = row.lastRoundId!;
    const result = backtest(History.from(ROUNDS), dsl, { fromRoundId: ROUNDS[500]!.id, toRoundId: last });
    expect(row.roundsSettled).toBe(result.totalRounds);
    expect(row.roundsBet).toBe(result.roundsBet);
    expect(row.roundsWon).toBe(result.roundsWon);
    expect(row.squaresBet).toBe(result.squaresBet);
    expect(row.netLamports).toBe(result.netProfitLamports);
    expect(row.stakeLamports).toBe(result.totalStakeLamports);
    expect(row.roiPercent).toBe(result.roiPercent);
    expect(row.maxDrawdownLamports / 1e9).toBe(result.maxDrawdownSol);
    expect(row.minNetLamports / 1e9).toBe(result.minWalletSol);
    expect(row.maxStreak).toBe(result.maxStreak);
    expect(row.oreEarned).toBe(result.oreEarned);
    expect(row.netLamports - row.oreValueLamports).toBe(result.solReturnedNetLamports);
    // Past the cutover the strategy earns ORE, and its value is part of the PnL.
    if (last > ROUNDS[950]!.id) expect(row.oreValueLamports).toBeGreaterThan(0);
    expect(equityCurve(series)).toEqual(result.equityCurve);
    expect(row.roundsBet).toBeGreaterThan(0);
  });

  it('stops where the backtest exits', () => {
    const { figures, dsl } = forward(DSLS[3], 500, 1500);
    const result = backtest(History.from(ROUNDS), dsl, { fromRoundId: ROUNDS[500]!.id, toRoundId: figures.lastRoundId! });
    expect(result.exitedEarly).toBe('stop_loss_streak');
    expect(result.exitRoundId).toBe(figures.lastRoundId);
  });

  it('counts voided rounds as observed only, and late predictions', () => {
    const f: Figures = emptyFigures('stg_x', 1);
    addRound(f, { roundId: 1, winningSquare: null, bet: false, squares: 0, stakeLamports: 0, pnlLamports: 0, hit: false, oreEarned: 0, oreValueLamports: 0 }, true);
    addRound(f, { roundId: 2, winningSquare: 3, bet: true, squares: 2, stakeLamports: 200, pnlLamports: -205, hit: false, oreEarned: 0, oreValueLamports: 0 }, false);
    expect(statsRow(f)).toMatchObject({ roundsObserved: 2, roundsSettled: 1, roundsBet: 1, lateCount: 1, streak: 1, netLamports: -205, lastRoundId: 2 });
  });

  it('restarts the losing streak with a new session, keeping the record', () => {
    const f: Figures = emptyFigures('stg_x', 1);
    addRound(f, { roundId: 2, winningSquare: 3, bet: true, squares: 1, stakeLamports: 100, pnlLamports: -100, hit: false, oreEarned: 0, oreValueLamports: 0 }, false);
    enterSession(f, 1);
    expect(statsRow(f).streak).toBe(1);
    enterSession(f, 2);
    expect(statsRow(f)).toMatchObject({ streak: 0, maxStreak: 1, netLamports: -100, sessionSeq: 2 });
  });

  it('keeps the ORE total exact past 2^53 across a restart', () => {
    const restored = figuresFromRow({ ...statsRow(emptyFigures('stg_x', 1)), oreEarned: '9007199254740993' });
    addRound(restored, { roundId: 2, winningSquare: 3, bet: true, squares: 1, stakeLamports: 100, pnlLamports: 50, hit: true, oreEarned: 7, oreValueLamports: 20 }, false);
    expect(statsRow(restored)).toMatchObject({ oreEarned: '9007199254741000', oreValueLamports: 20, roundsWon: 1, netLamports: 50 });
  });

  it('shortens an owner key to first four...last four', () => {
    expect(ownerShort('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')).toBe('9xQe...VFin');
  });
});
