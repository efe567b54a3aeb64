import { normalizeDsl } from '../dsl/normalize';
import { History } from '../history/history';
import { flatRound } from '../testing/fixtures';
import { createRunner } from './runner';
import type { RoundOutcome } from './types';

const B = 1_000_000;
const FEE = 5000;
const W = 0;
const L = 1;

/**
 * Bets square 0 every round of a board with 1 SOL on every square, winning when the
 * round's winner is 0. Returns each round's outcome.
 */
function play(winners: readonly number[], params: Record<string, unknown>, prior: readonly number[] = []): RoundOutcome[] {
  const dsl = normalizeDsl({ base_strategy: 'custom_squares', params: { bet_size_lamports: B, custom_squares: [0], ...params } });
  const runner = createRunner(dsl);
  let id = 1;
  for (const w of prior) runner.observe(flatRound(id++, w));
  return winners.map((w) => runner.step(flatRound(id++, w)));
}

const stakes = (outcomes: readonly RoundOutcome[]): number[] => outcomes.map((o) => o.stakeLamports);

/** SPEC 7.7 with one stake S on square 0 and 1 SOL on each of the 25 squares: L = 24 SOL. */
// L = 24 SOL on the other squares: w = 24e9 - 24e7, total_winnings = w - w/10 = 21,384,000,000 (SPEC 7.7).
const payoutOf = (s: number): number => s - Math.max(1, Math.floor(s / 100)) + Math.floor((21_384_000_000 * s) / (1e9 + s));

describe('sizing modes (stake per chosen square)', () => {
  it('payout of a single stake on a 1 SOL square, by the SPEC formula', () => {
    expect([B, 2 * B, 3 * B, 4 * B, 8 * B].map(payoutOf)).toEqual([22_352_637, 44_662_634, 66_930_119, 89_155_219, 177_634_285]);
    const [hit, miss] = play([W, L], {});
    expect(hit).toMatchObject({ stakeLamports: B, payoutLamports: 22_352_637, pnlLamports: 22_352_637 - B - FEE, hit: true });
    expect(miss).toMatchObject({ stakeLamports: B, payoutLamports: 0, pnlLamports: -B - FEE, hit: false });
  });

  it('flat bets b every round', () => {
    expect(stakes(play([L, L, W, L], {}))).toEqual([B, B, B, B]);
  });

  it('martingale multiplies by m for each loss from the threshold on, and resets after a win', () => {
    const seq = [L, L, L, W, L, W, W, L, L, L, L, W];
    expect(stakes(play(seq, { sizing_mode: 'martingale' }))).toEqual([1, 2, 4, 8, 1, 2, 1, 1, 2, 4, 8, 16].map((x) => x * B));
    expect(stakes(play(seq, { sizing_mode: 'martingale', loss_streak_threshold: 2 }))).toEqual([1, 1, 2, 4, 1, 1, 1, 1, 1, 2, 4, 8].map((x) => x * B));
    expect(stakes(play([L, L], { sizing_mode: 'martingale', martingale_multiplier: 1.5 }))).toEqual([B, 1.5 * B]);
    // The round after three losses stakes 8b and wins: its PnL is exact.
    expect(play(seq, { sizing_mode: 'martingale' })[3]!.pnlLamports).toBe(177_634_285 - 8 * B - FEE);
  });

  it('reverse_martingale multiplies by m per win, back to b after a loss or at the threshold', () => {
    const seq = [W, W, W, W, W, L, W];
    expect(stakes(play(seq, { sizing_mode: 'reverse_martingale', loss_streak_threshold: 3 }))).toEqual([1, 2, 4, 1, 2, 4, 1].map((x) => x * B));
    // With the default threshold 1, w resets after every win: flat.
    expect(stakes(play(seq, { sizing_mode: 'reverse_martingale' }))).toEqual(seq.map(() => B));
  });

  it('fibonacci steps forward on a loss and two back on a win', () => {
    const seq = [L, L, L, L, W, L, W, W];
    expect(stakes(play(seq, { sizing_mode: 'fibonacci' }))).toEqual([1, 1, 2, 3, 5, 2, 3, 1].map((x) => x * B));
  });

  it("d'Alembert adds a step per loss and removes one per win, never below b", () => {
    const seq = [L, L, W, W, W, L];
    const step = 100_000;
    expect(stakes(play(seq, { sizing_mode: 'dalembert' }))).toEqual([B, B + step, B + 2 * step, B + step, B, B]);
  });

  it('kelly sizes from the smoothed hit rate and the previous round odds', () => {
    // Five rounds before: square 0 won twice. p = 3/30, o = 0.891 * 24 - 0.01, f = (p*o - (1-p))/o.
    const [first] = play([W], { sizing_mode: 'kelly' }, [W, L, W, L, L]);
    // payout = 14,473,191 - 144,731 + floor(21,384,000,000 * 14,473,191 / 1,014,473,191) = 14,328,460 + 305,079,246.
    expect(first).toMatchObject({ stakeLamports: 14_473_191, payoutLamports: 319_407_706, pnlLamports: 304_929_515 });
    // A square that never won in the window has f < 0: not bet at all.
    const [none] = play([W], { sizing_mode: 'kelly' }, [L, L, L, L, L]);
    expect(none!.decision).toEqual({ bet: false, reason: 'zero_stakes', squares: [], stakesLamports: [] });
  });

  it('kelly does not bet without a previous round, and stops when the bankroll is gone', () => {
    const [first] = play([W], { sizing_mode: 'kelly' });
    expect(first!.decision.reason).toBe('zero_stakes');
    // A bankroll of 1 lamport floors every stake to 0; after a session loss it is <= 0.
    const tiny = play([W], { sizing_mode: 'kelly', kelly_bankroll_lamports: 1 }, [W, L, W, L, L]);
    expect(tiny[0]!.decision.reason).toBe('zero_stakes');
    // Squares 0 and 1 won half of 20 rounds each, so only they have an edge; a 1,000,000 fee drains the bankroll.
    const dsl = normalizeDsl({
      base_strategy: 'all_25',
      params: { bet_size_lamports: B, sizing_mode: 'kelly', kelly_bankroll_lamports: 2_000_000, kelly_fraction: 1, tx_fee_lamports: 1_000_000 },
    });
    const history = History.from(Array.from({ length: 23 }, (_, i) => flatRound(i + 1, i < 20 ? i % 2 : 5)));
    const runner = createRunner(dsl, history);
    runner.seek(20);
    const outcomes = [runner.step(), runner.step(), runner.step()];
    expect(outcomes[0]!.decision.squares).toEqual([0, 1]);
    expect(outcomes[1]!.decision.bet).toBe(true);
    expect(runner.summary().netProfitLamports).toBeLessThanOrEqual(-2_000_000);
    expect(outcomes[2]!.decision.reason).toBe('bankroll_depleted');
  });

  it('floors fractional stakes and caps each at max_bet_per_square_lamports, counting cap hits and their losses', () => {
    const dsl = normalizeDsl({
      base_strategy: 'custom_squares',
      params: { bet_size_lamports: B, custom_squares: [0], sizing_mode: 'martingale', martingale_multiplier: 2.5, max_bet_per_square_lamports: 5 * B },
    });
    const runner = createRunner(dsl, new History(), { record: true });
    const outcomes = [L, L, L, W].map((w, i) => runner.step(flatRound(i + 1, w)));
    expect(stakes(outcomes)).toEqual([B, 2.5 * B, 5 * B, 5 * B]);
    expect(outcomes.map((o) => o.capHit)).toEqual([false, false, true, true]);
    const result = runner.result();
    expect(result.capHits).toBe(2);
    // Only the losing capped round counts: 5b + fee lost in round 3.
    expect(result.totalCapLossSol).toBe((5 * B + FEE) / 1e9);
    // 1.5 x b with b = 3 lamports is 4.5: floored to 4.
    const small = createRunner(normalizeDsl({ base_strategy: 'custom_squares', params: { bet_size_lamports: 3, custom_squares: [0], sizing_mode: 'martingale', martingale_multiplier: 1.5 } }));
    expect(stakes([L, L].map((w, i) => small.step(flatRound(i + 1, w))))).toEqual([3, 4]);
  });

  it('a hit whose payout does not cover the stakes is a loss for sizing and streaks', () => {
    const dsl = normalizeDsl({ base_strategy: 'all_25', params: { bet_size_lamports: B, sizing_mode: 'martingale' } });
    const runner = createRunner(dsl, new History(), { record: true });
    const outcomes = [0, 0].map((w, i) => runner.step(flatRound(i + 1, w)));
    expect(outcomes[0]).toMatchObject({ hit: true, stakeLamports: 25 * B });
    expect(outcomes[0]!.pnlLamports).toBeLessThan(0);
    expect(outcomes[1]!.stakeLamports).toBe(50 * B);
    const result = runner.result();
    expect(result).toMatchObject({ roundsWon: 2, winRate: 1, maxStreak: 2, streakRunLengths: [2] });
  });
});
