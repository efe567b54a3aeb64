import { InputError } from '@gridlab/errors';
import fc from 'fast-check';
import { normalizeDsl } from '../dsl/normalize';
import { History } from '../history/history';
import { flatRound } from '../testing/fixtures';
import { MAX_WINDOW_ROUNDS, backtest, resolveWindow, runWindow } from './backtest';
import { MAX_EQUITY_POINTS, downsampleIndexes } from './result';

const B = 1_000_000;
const HIT = 22_352_637;
const W = 0;
const L = 1;
const squareZero = normalizeDsl({ base_strategy: 'custom_squares', params: { bet_size_lamports: B, custom_squares: [0] } });

function windowError(history: History, window: { fromRoundId?: number; toRoundId?: number }): { path: string; message: string } {
  try {
    resolveWindow(history, window);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).errors![0]!;
  }
  throw new Error('expected an error');
}

describe('backtest', () => {
  it('reports every SPEC 7.8 figure of a hand-checked run', () => {
    const history = History.from([L, L, W, L, W, W, L].map((w, i) => flatRound(i + 1, w)));
    const r = backtest(history, squareZero);
    const win = HIT - B - 5000;
    const loss = -B - 5000;
    expect(r.perRoundPnlLamports).toEqual([loss, loss, win, loss, win, win, loss]);
    expect(r).toMatchObject({
      totalRounds: 7,
      roundsBet: 7,
      roundsWon: 3,
      squaresBet: 7,
      squaresWonOn: 3,
      netProfitLamports: 60_022_911,
      netProfitSol: 0.060022911,
      totalStakeLamports: 7 * B,
      totalStakeSol: 0.007,
      // Rounds 3 and 5 ended losing streaks.
      totalRecoveryLamports: 2 * win,
      totalRecoverySol: (2 * win) / 1e9,
      roiPercent: (100 * 60_022_911) / (7 * B),
      winRate: 3 / 7,
      perSquareWinRate: 3 / 7,
      maxStreak: 2,
      capHits: 0,
      totalCapLossSol: 0,
      minWalletSol: -0.00201,
      maxDrawdownSol: 0.00201,
      rangeMin: 1,
      rangeMax: 7,
      exitedEarly: null,
      exitRoundId: 7,
      streakRunLengths: [2, 1, 1],
    });
    expect(r.equityCurve.map((p) => p.balanceLamports)).toEqual([-1_005_000, -2_010_000, 19_337_637, 18_332_637, 39_680_274, 61_027_911, 60_022_911]);
    expect(r.equityCurve.map((p) => p.round)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(r.perSquare).toHaveLength(25);
    expect(r.perSquare[0]).toEqual({ square: 0, betCount: 7, winCount: 3, netLamports: 3 * HIT - 7 * B });
    expect(r.perSquare[1]).toEqual({ square: 1, betCount: 0, winCount: 0, netLamports: 0 });
  });

  it('answers zeros, not NaN, when nothing was bet', () => {
    const history = History.from([flatRound(1, 0), flatRound(2, 3)]);
    const r = backtest(history, normalizeDsl({ base_strategy: 'drought', params: { bet_size_lamports: B, drought_threshold: 500 } }));
    expect(r).toMatchObject({ totalRounds: 2, roundsBet: 0, roiPercent: 0, winRate: 0, perSquareWinRate: 0, minWalletSol: 0, maxDrawdownSol: 0, perRoundPnlLamports: [0, 0] });
  });

  it('replays an inclusive window whose lookback reaches back before it', () => {
    const history = History.from(Array.from({ length: 10 }, (_, i) => flatRound(i + 1, i % 3)));
    const cold = normalizeDsl({ base_strategy: 'recent_winners', params: { bet_size_lamports: B, num_squares: 1 } });
    const r = backtest(history, cold, { fromRoundId: 4, toRoundId: 6 });
    expect(r).toMatchObject({ totalRounds: 3, rangeMin: 4, rangeMax: 6 });
    // Round 4 bets the winner of round 3 (square 2), which is before the window.
    expect(r.roundsBet).toBe(3);
    expect(r.perRoundPnlLamports).toEqual([-B - 5000, -B - 5000, -B - 5000]);
  });

  it('defaults to the latest 200,000 stored rounds ending at toRoundId, and refuses bad windows', () => {
    const history = new History(MAX_WINDOW_ROUNDS + 10);
    const template = flatRound(0, 0);
    for (let id = 1; id <= MAX_WINDOW_ROUNDS + 5; id++) history.append({ ...template, id, winningSquare: id % 25 });
    expect(resolveWindow(history)).toMatchObject({ fromIndex: 5, endIndex: MAX_WINDOW_ROUNDS + 5, firstId: 6, lastId: MAX_WINDOW_ROUNDS + 5 });
    expect(resolveWindow(history, { toRoundId: 100 })).toMatchObject({ firstId: 1, lastId: 100 });
    expect(resolveWindow(history, { fromRoundId: 6 })).toMatchObject({ firstId: 6, lastId: MAX_WINDOW_ROUNDS + 5 });
    expect(windowError(history, { fromRoundId: 5 }).message).toMatch(/200001 stored rounds, more than 200000/);
    expect(windowError(history, { fromRoundId: 9, toRoundId: 8 })).toEqual({ path: '/fromRoundId', message: 'must not be greater than toRoundId (9 > 8)' });
    expect(windowError(history, { fromRoundId: MAX_WINDOW_ROUNDS + 6 })).toEqual({ path: '/fromRoundId', message: 'the window holds no stored round' });
    expect(windowError(history, { toRoundId: 0 }).path).toBe('/toRoundId');
    expect(windowError(new History(), {}).path).toBe('/');
    expect(windowError(history, { fromRoundId: 1.5 })).toEqual({ path: '/fromRoundId', message: 'must be a non-negative integer' });
  });

  it('hands a released record to the next recording run, whose result does not depend on what ran before', () => {
    // Long enough for its record to be kept (SPARE_MIN), with wins and losses on square 0.
    const history = new History(70_000);
    const template = flatRound(0, 0);
    for (let id = 1; id <= 70_000; id++) history.append({ ...template, id, winningSquare: (id * 7) % 13 === 0 ? null : (id * 7919) % 25 });
    const window = resolveWindow(history, { fromRoundId: 1 });
    const first = runWindow(history, squareZero, window, { record: true });
    const arrays = first.stats.recordedPnl;
    first.release();
    expect(() => first.result()).toThrow(/released/);
    const next = runWindow(history, squareZero, window, { record: true });
    expect(next.stats.recordedPnl).toBe(arrays);
    next.release();

    // A run that sits out most rounds after one that bet on every round: the rounds it
    // does not bet are 0 in its record, not what the record held before.
    const cautious = normalizeDsl({ base_strategy: 'custom_squares', params: { bet_size_lamports: B, custom_squares: [0], cooldown_after_loss_rounds: 5 } });
    const alone = backtest(history, cautious, { fromRoundId: 1 });
    backtest(history, squareZero, { fromRoundId: 1 });
    const after = backtest(history, cautious, { fromRoundId: 1 });
    expect(after).toEqual(alone);
    expect(after.roundsBet).toBeLessThan(after.totalRounds / 2);
    expect(after.perRoundPnlLamports.filter((pnl) => pnl !== 0).length).toBe(after.roundsBet);
  });

  it('reports the window bounds when it holds only voided rounds', () => {
    const history = History.from([flatRound(1, 0), flatRound(2, null), flatRound(3, null)]);
    expect(backtest(history, squareZero, { fromRoundId: 2 })).toMatchObject({ totalRounds: 0, rangeMin: 2, rangeMax: 3, exitRoundId: 3, perRoundPnlLamports: [] });
  });

  it('cuts the equity curve to at most 2000 points keeping first, last, minimum and maximum', () => {
    const history = History.from(Array.from({ length: 7001 }, (_, i) => flatRound(i + 1, (i * 7) % 25 === 3 ? 0 : 1)));
    const r = backtest(history, squareZero);
    expect(r.perRoundPnlLamports).toHaveLength(7001);
    expect(r.equityCurve.length).toBeLessThanOrEqual(MAX_EQUITY_POINTS);
    let running = 0;
    const balances = r.perRoundPnlLamports.map((p) => (running += p));
    const values = r.equityCurve.map((p) => p.balanceLamports);
    expect(r.equityCurve[0]).toEqual({ round: 1, balanceLamports: balances[0] });
    expect(r.equityCurve.at(-1)).toEqual({ round: 7001, balanceLamports: balances.at(-1) });
    expect(Math.min(...values)).toBe(Math.min(...balances));
    expect(Math.max(...values)).toBe(Math.max(...balances));
  });
});

describe('downsampleIndexes', () => {
  it('keeps at most `max` ascending points including first, last, a minimum and a maximum', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 3000 }), fc.integer({ min: 4, max: 300 }), (values, max) => {
        const kept = downsampleIndexes(values, max);
        expect(kept.length).toBeLessThanOrEqual(Math.min(max, values.length));
        expect(kept[0]).toBe(0);
        expect(kept.at(-1)).toBe(values.length - 1);
        for (let i = 1; i < kept.length; i++) expect(kept[i]!).toBeGreaterThan(kept[i - 1]!);
        const picked = kept.map((i) => values[i]!);
        expect(Math.min(...picked)).toBe(Math.min(...values));
        expect(Math.max(...picked)).toBe(Math.max(...values));
        if (values.length <= max) expect(kept).toHaveLength(values.length);
      }),
    );
  });
});
