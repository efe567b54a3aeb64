import { backtest } from '../backtest/backtest';
import { normalizeDsl } from '../dsl/normalize';
import { History } from '../history/history';
import { flatRound } from '../testing/fixtures';
import { createRunner } from './runner';

const B = 1_000_000;
const FEE = 5000;
const WIN_PNL = 22_352_637 - B - FEE;
const LOSS_PNL = -B - FEE;
const W = 0;
const L = 1;
const V = null;

/** Bets square 0 over rounds 1..n with these winners (null = voided). */
function run(winners: readonly (number | null)[], params: Record<string, unknown>) {
  const dsl = normalizeDsl({ base_strategy: 'custom_squares', params: { bet_size_lamports: B, custom_squares: [0], ...params } });
  const history = History.from(winners.map((w, i) => flatRound(i + 1, w)));
  const runner = createRunner(dsl, history);
  const reasons = winners.map(() => runner.step().decision.reason);
  return { reasons, result: backtest(history, dsl) };
}

describe('stops', () => {
  it('cooldown skips that many settled rounds after a losing bet-round (voided rounds do not count)', () => {
    const { reasons, result } = run([L, W, V, W, W, L, W], { cooldown_after_loss_rounds: 2 });
    expect(reasons).toEqual(['bet', 'cooldown', 'voided', 'cooldown', 'bet', 'bet', 'cooldown']);
    expect(result.perRoundPnlLamports).toEqual([LOSS_PNL, 0, 0, WIN_PNL, LOSS_PNL, 0]);
    expect(result.totalRounds).toBe(6);
    expect(result.roundsBet).toBe(3);
  });

  it('stop_loss_streak ends the run after that many losses in a row; later rounds count with PnL 0', () => {
    const { reasons, result } = run([L, W, L, L, L, W, W], { stop_loss_streak: 3 });
    expect(reasons).toEqual(['bet', 'bet', 'bet', 'bet', 'bet', 'stopped', 'stopped']);
    expect(result).toMatchObject({ exitedEarly: 'stop_loss_streak', exitRoundId: 5, totalRounds: 7, roundsBet: 5, rangeMax: 7 });
    expect(result.perRoundPnlLamports.slice(5)).toEqual([0, 0]);
  });

  it('rounds not bet neither extend nor break a losing streak', () => {
    // Loss, a cooldown round the strategy would have won, loss: two in a row.
    const { result } = run([L, W, L, W], { cooldown_after_loss_rounds: 1, stop_loss_streak: 2 });
    expect(result).toMatchObject({ exitedEarly: 'stop_loss_streak', exitRoundId: 3, maxStreak: 2 });
  });

  it('take_profit exits once net PnL reaches it', () => {
    const { reasons, result } = run([L, W, W], { take_profit_lamports: WIN_PNL + LOSS_PNL });
    expect(reasons).toEqual(['bet', 'bet', 'stopped']);
    expect(result).toMatchObject({ exitedEarly: 'take_profit', exitRoundId: 2, netProfitLamports: WIN_PNL + LOSS_PNL });
    // One lamport more and it is not reached.
    expect(run([L, W, L], { take_profit_lamports: WIN_PNL + LOSS_PNL + 1 }).result.exitedEarly).toBeNull();
  });

  it('session_stop_loss exits once net PnL falls to minus it', () => {
    const { result } = run([L, L, L], { session_stop_loss_lamports: 2 * (B + FEE) });
    expect(result).toMatchObject({ exitedEarly: 'session_stop_loss', exitRoundId: 2, netProfitLamports: 2 * LOSS_PNL });
  });

  it('stop_loss_streak takes precedence over session_stop_loss in the same round', () => {
    const { result } = run([L, L, L], { stop_loss_streak: 2, session_stop_loss_lamports: 2 * (B + FEE) });
    expect(result).toMatchObject({ exitedEarly: 'stop_loss_streak', exitRoundId: 2 });
  });

  it('without an exit, exitedEarly is null and exitRoundId is the last round of the window', () => {
    const { result } = run([L, W, V], { stop_loss_streak: 5 });
    // Round 3 is voided: the last non-voided round is 2.
    expect(result).toMatchObject({ exitedEarly: null, exitRoundId: 2, rangeMin: 1, rangeMax: 2, totalRounds: 2 });
  });

  it('zero means off for take_profit and session_stop_loss', () => {
    expect(run([L, L, L, W, W], {}).result.exitedEarly).toBeNull();
  });
});
