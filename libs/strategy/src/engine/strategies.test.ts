import { normalizeDsl } from '../dsl/normalize';
import { History } from '../history/history';
import { fixtureRounds } from '../testing/fixtures';
import { referenceRun } from '../testing/reference';
import { createRunner } from './runner';
import { FIXED_SHAPE } from './select';
import type { RoundOutcome } from './types';

const B = 1_000_000;
const FEE = 5000;

/** Steps the 30-round fixture (see fixtures.ts: winners, gap at 20, voided 10) and returns the outcomes by round id. */
function play(base: string, params: Record<string, unknown> = {}): Map<number, RoundOutcome> {
  const dsl = normalizeDsl({ base_strategy: base, params: { bet_size_lamports: B, ...params } });
  const runner = createRunner(dsl);
  const out = new Map<number, RoundOutcome>();
  for (const round of fixtureRounds()) {
    const outcome = runner.step(round);
    out.set(outcome.roundId, outcome);
  }
  return out;
}

const squaresAt = (run: Map<number, RoundOutcome>, id: number): readonly number[] => run.get(id)!.decision.squares;

// Non-voided rounds before id 21: winners 0 0 3 7 3 12 24 3 7 | 0 5 5 5 18 3 21 0 9 (ids 1-9, 11-19).
describe('base strategies on the fixture (ties to the lower square)', () => {
  it('cold: the longest droughts, never-won squares first', () => {
    const run = play('cold', { num_squares: 3 });
    expect(squaresAt(run, 21)).toEqual([1, 2, 4]);
    const all = play('cold', { num_squares: 25 });
    expect(squaresAt(all, 21)).toEqual([1, 2, 4, 6, 8, 10, 11, 13, 14, 15, 16, 17, 19, 20, 22, 23, 12, 24, 7, 5, 18, 3, 21, 0, 9]);
    expect(run.get(1)!.decision.reason).toBe('no_squares');
  });

  it('hot: most wins in the last 50 rounds, then the more recent last win', () => {
    const run = play('hot', { num_squares: 5 });
    // 0 and 3 both won 4 times; 0 won more recently (id 18 vs 16).
    expect(squaresAt(run, 21)).toEqual([0, 3, 5, 7, 9]);
    const three = play('hot', { num_squares: 3 });
    expect(squaresAt(three, 21)).toEqual([0, 3, 5]);
    // Round 21 was won by 3 (one of the three): stake back plus a pro-rata share.
    expect(three.get(21)).toMatchObject({ stakeLamports: 3 * B, payoutLamports: 11_678_437, pnlLamports: 8_673_437, hit: true });
  });

  it('hot counts only the last 50 rounds', () => {
    // 60 rounds: square 3 wins 7 times, then square 1 three times, then square 2 fifty times.
    const rounds = fixtureRounds().slice(0, 1);
    const history = History.from([]);
    let id = 1;
    for (let t = 0; t < 60; t++) history.append({ ...rounds[0]!, id: id++, winningSquare: t < 7 ? 3 : t < 10 ? 1 : 2 });
    const runner = createRunner(normalizeDsl({ base_strategy: 'hot', params: { bet_size_lamports: B, num_squares: 2 } }), history);
    runner.seek(59);
    // The window (the 50 rounds before: 10th..59th) holds 49 wins of 2 and one of 1; 3's 7 wins are older.
    expect(runner.decide().squares).toEqual([2, 1]);
    runner.step();
    // Now only 2 won in the window; 1 and 3 tie at zero and 1 won more recently.
    expect(runner.decide().squares).toEqual([2, 1]);
  });

  it('drought: squares at or past the threshold, longest first, at most k; none means no bet', () => {
    expect(squaresAt(play('drought', { drought_threshold: 12, num_squares: 25 }), 21)).toEqual([1, 2, 4, 6, 8, 10, 11, 13, 14, 15, 16, 17, 19, 20, 22, 23, 12]);
    expect(squaresAt(play('drought', { drought_threshold: 12, num_squares: 2 }), 21)).toEqual([1, 2]);
    const none = play('drought', { drought_threshold: 19, num_squares: 5 });
    expect(none.get(21)!.decision).toEqual({ bet: false, reason: 'no_squares', squares: [], stakesLamports: [] });
  });

  it('top_hit_rate / bottom_hit_rate: most / fewest wins over hit_rate_lookback, ties to the lower square', () => {
    expect(squaresAt(play('top_hit_rate', { num_squares: 5 }), 21)).toEqual([0, 3, 5, 7, 9]);
    expect(squaresAt(play('bottom_hit_rate', { num_squares: 3 }), 21)).toEqual([1, 2, 4]);
    // At round 11 (after 9 rounds: 0 0 3 7 3 12 24 3 7): 3 won 3 times, 0 and 7 twice.
    expect(squaresAt(play('top_hit_rate', { num_squares: 4 }), 11)).toEqual([3, 0, 7, 12]);
  });

  it('recent_winners: distinct winners newest first, possibly fewer than k', () => {
    expect(squaresAt(play('recent_winners', { num_squares: 5 }), 21)).toEqual([9, 0, 21, 3, 18]);
    // Before round 3 only square 0 ever won.
    expect(squaresAt(play('recent_winners', { num_squares: 5 }), 3)).toEqual([0]);
  });

  it('spread / anti_spread: least / most SOL on the previous round (the gap at 20 is skipped)', () => {
    // Previous round of 21 is 19, where square s held (1 + (s + 19) % 25) x 0.1 SOL.
    const spread = play('spread', { num_squares: 3 });
    expect(squaresAt(spread, 21)).toEqual([6, 7, 8]);
    expect(spread.get(21)).toMatchObject({ stakeLamports: 3 * B, payoutLamports: 0, pnlLamports: -3 * B - FEE, hit: false });
    const anti = play('anti_spread', { num_squares: 3 });
    expect(squaresAt(anti, 21)).toEqual([5, 4, 3]);
    expect(anti.get(21)!.pnlLamports).toBe(8_673_437);
    // The previous round of 11 is 9 (10 was voided).
    expect(squaresAt(spread, 11)).toEqual([16, 17, 18]);
  });

  it('spread / anti_spread break ties to the lower square', () => {
    const equal = fixtureRounds().map((r) => ({ ...r, deployed: Array(25).fill(5), totalDeployed: 125 }));
    const spread = createRunner(normalizeDsl({ base_strategy: 'spread', params: { bet_size_lamports: B, num_squares: 3 } }), History.from(equal));
    spread.seek(5);
    expect(spread.decide().squares).toEqual([0, 1, 2]);
    const anti = createRunner(normalizeDsl({ base_strategy: 'anti_spread', params: { bet_size_lamports: B, num_squares: 3 } }), History.from(equal));
    anti.seek(5);
    expect(anti.decide().squares).toEqual([0, 1, 2]);
  });

  it('min_miners: fewest miners on the previous round', () => {
    // Round 19 has 1 + (43 - s) % 25 miners on square s: fewest on 18, then 17, 16.
    expect(squaresAt(play('min_miners', { num_squares: 3 }), 21)).toEqual([18, 17, 16]);
  });

  it('custom_squares: the given squares, deduplicated, from the first round; k ignored', () => {
    const run = play('custom_squares', { custom_squares: [7, 3, 7], num_squares: 1 });
    expect(squaresAt(run, 1)).toEqual([3, 7]);
    expect(run.get(1)!.decision.stakesLamports).toEqual([B, B]);
  });

  it.each([
    ['corners', {}, [0, 4, 20, 24]],
    ['edges', {}, [1, 2, 3, 5, 9, 10, 14, 15, 19, 21, 22, 23]],
    ['center_block', {}, [6, 7, 8, 11, 12, 13, 16, 17, 18]],
    ['diagonal_main', {}, [0, 6, 12, 18, 24]],
    ['diagonal_anti', {}, [4, 8, 12, 16, 20]],
    ['row', { row_index: 3 }, [15, 16, 17, 18, 19]],
    ['column', { column_index: 2 }, [2, 7, 12, 17, 22]],
    ['checkerboard', {}, [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24]],
    ['all_25', {}, Array.from({ length: 25 }, (_, s) => s)],
  ])('%s bets its fixed squares from the first round, whatever num_squares says', (base, params, squares) => {
    const run = play(base, { ...params, num_squares: 2 });
    for (const id of [1, 21, 31]) expect(squaresAt(run, id)).toEqual(squares);
  });

  it('corners: exact PnL of a hit and a miss', () => {
    const run = play('corners');
    // Round 1: square 0 held 0.2 SOL, the other squares 32.3 SOL + our 3 other stakes.
    expect(run.get(1)).toMatchObject({ stakeLamports: 4 * B, payoutLamports: 144_183_895, pnlLamports: 140_178_895 });
    expect(run.get(7)).toMatchObject({ payoutLamports: 41_412_928, pnlLamports: 37_407_928 });
    expect(run.get(2)).toMatchObject({ payoutLamports: 96_315_159, pnlLamports: 92_310_159 });
    expect(run.get(3)!.pnlLamports).toBe(-4 * B - FEE);
  });

  it('voided rounds are skipped: no bet, no state change', () => {
    const run = play('recent_winners', { num_squares: 1 });
    expect(run.get(10)!.decision.reason).toBe('voided');
    // The winner before 11 is still 7 (round 9): the voided round changed nothing.
    expect(squaresAt(run, 11)).toEqual([7]);
  });

  it.each(['cold', 'hot', 'drought', 'top_hit_rate', 'bottom_hit_rate', 'recent_winners', 'spread', 'anti_spread', 'min_miners'])(
    '%s agrees with the naive implementation over the whole fixture',
    (base) => {
      const dsl = normalizeDsl({ base_strategy: base, params: { bet_size_lamports: B, drought_threshold: 6 } });
      const runner = createRunner(dsl, History.from(fixtureRounds()), { record: true });
      runner.runTo(30);
      const expected = referenceRun(dsl, fixtureRounds());
      expect(runner.summary().netProfitLamports).toBe(expected.net);
      expect(runner.summary().roundsBet).toBe(expected.rounds.filter((r) => r.squares.length > 0).length);
    },
  );
});

describe('which strategies are fixed shapes', () => {
  it('are custom_squares and the nine shapes (SPEC 7.3), none that reads history', () => {
    expect([...FIXED_SHAPE].sort()).toEqual(['all_25', 'center_block', 'checkerboard', 'column', 'corners', 'custom_squares', 'diagonal_anti', 'diagonal_main', 'edges', 'row']);
  });
});
