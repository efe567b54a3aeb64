import { normalizeDsl } from '../dsl/normalize';
import type { FilterMetric, FilterOp } from '../dsl/types';
import { History, type RoundInput } from '../history/history';
import { chiSquaredPValue24 } from '../math/chi-squared';
import { SOL, flatRound, round } from '../testing/fixtures';
import { createRunner } from './runner';

const B = 1_000_000;

/** The decision for the round after `prior`, betting custom squares under one filter. */
function decides(prior: readonly RoundInput[], metric: FilterMetric, op: FilterOp, value: number, squares = [0], lookback = 1000): boolean {
  const dsl = normalizeDsl({
    base_strategy: 'custom_squares',
    params: { bet_size_lamports: B, custom_squares: squares, hit_rate_lookback: lookback },
    filters: [{ metric, op, value }],
  });
  const runner = createRunner(dsl, History.from(prior));
  runner.seek(prior.length);
  const decision = runner.decide();
  if (!decision.bet) expect(decision.reason).toBe('filtered');
  return decision.bet;
}

/** A 1 SOL-per-square round whose squares hold `miners` miners in total (on square 0). */
const withMiners = (id: number, miners: number): RoundInput => round(id, 3, Array(25).fill(SOL), [miners, ...Array(24).fill(0)]);

describe('filters', () => {
  it.each([
    ['<', [true, false, false]],
    ['<=', [true, true, false]],
    ['>', [false, false, true]],
    ['>=', [false, true, true]],
    ['==', [false, true, false]],
  ] as const)('operator %s compares exactly (total_miners of the previous round vs 20)', (op, expected) => {
    expect([10, 20, 30].map((m) => decides([withMiners(1, 5), withMiners(2, m)], 'total_miners', op, 20))).toEqual(expected);
  });

  it('every metric but consecutive_losses fails with no previous round', () => {
    for (const metric of ['rounds_since_last_big', 'current_drought_min', 'current_drought_max', 'total_deployed_pctile', 'total_miners', 'rounds_since_big_round', 'chi_square_p_recent'] as const) {
      expect(decides([], metric, '>=', -1)).toBe(false);
    }
    expect(decides([], 'consecutive_losses', '==', 0)).toBe(true);
  });

  it('consecutive_losses is n at decision time; rounds not bet leave it unchanged', () => {
    const dsl = normalizeDsl({ base_strategy: 'custom_squares', params: { bet_size_lamports: B, custom_squares: [0] }, filters: [{ metric: 'consecutive_losses', op: '<', value: 2 }] });
    const runner = createRunner(dsl);
    const outcomes = [1, 1, 0, 0].map((w, i) => runner.step(flatRound(i + 1, w)));
    expect(outcomes.map((o) => o.decision.reason)).toEqual(['bet', 'bet', 'filtered', 'filtered']);
  });

  it('current_drought_min / _max over the chosen squares', () => {
    // Winners 0, 2, 2: square 0 last won 2 rounds ago, square 1 never (drought 3 = rounds before).
    const prior = [flatRound(1, 0), flatRound(2, 2), flatRound(3, 2)];
    expect(decides(prior, 'current_drought_min', '==', 2, [0, 1])).toBe(true);
    expect(decides(prior, 'current_drought_max', '==', 3, [0, 1])).toBe(true);
    expect(decides(prior, 'current_drought_min', '==', 3, [0, 1])).toBe(false);
    expect(decides(prior, 'current_drought_max', '<', 3, [0, 1])).toBe(false);
  });

  it('total_deployed_pctile ranks the previous total among the last hit_rate_lookback rounds', () => {
    const totals = [100, 300, 200, 400, 200];
    const prior = totals.map((t, i) => round(i + 1, 0, [t, ...Array(24).fill(0)]));
    // 200 is >= 3 of the 5 values (100, 200, 200): 60.
    expect(decides(prior, 'total_deployed_pctile', '==', 60)).toBe(true);
    expect(decides(prior, 'total_deployed_pctile', '>', 60)).toBe(false);
    // With 60 rounds and a lookback of 50, the 10 oldest (all 1) fall out of the window.
    const long = Array.from({ length: 60 }, (_, i) => round(i + 1, 0, [i < 10 ? 1 : 1000 + i, ...Array(24).fill(0)]));
    expect(decides(long, 'total_deployed_pctile', '==', 100, [0], 50)).toBe(true);
    const lowest = [...long.slice(0, 59), round(60, 0, [5, ...Array(24).fill(0)])];
    // 5 is the smallest of the last 50 (the 1s are older): rank 1/50.
    expect(decides(lowest, 'total_deployed_pctile', '==', 2, [0], 50)).toBe(true);
    // With the default lookback (1000) all 60 count: 5 is above the ten 1s.
    expect(decides(lowest, 'total_deployed_pctile', '==', (100 * 11) / 60)).toBe(true);
  });

  it('rounds_since_last_big counts rounds since a winning square paid 24x or more', () => {
    // 24 SOL on the losers pays 21.384 SOL: 21x on a 1 SOL winner, 42x on a 0.5 SOL one.
    const big = round(2, 0, [SOL / 2, ...Array(24).fill(SOL)]);
    expect(decides([flatRound(1, 0)], 'rounds_since_last_big', '>=', 0)).toBe(false);
    expect(decides([flatRound(1, 0), big], 'rounds_since_last_big', '==', 0)).toBe(true);
    expect(decides([flatRound(1, 0), big, flatRound(3, 1), flatRound(4, 1)], 'rounds_since_last_big', '==', 2)).toBe(true);
    // Nobody on the winning square: nobody was paid, not a big payout.
    const empty = round(2, 0, [0, ...Array(24).fill(SOL)]);
    expect(decides([flatRound(1, 0), empty], 'rounds_since_last_big', '>=', 0)).toBe(false);
  });

  it('rounds_since_big_round uses the big_round rule: >= 2x the median of the previous rounds, with at least 100', () => {
    const base = Array.from({ length: 100 }, (_, i) => flatRound(i + 1, i % 25));
    const double = round(101, 0, Array(25).fill(2 * SOL));
    const almost = round(101, 0, Array(25).fill(2 * SOL - 1));
    // Only 99 rounds before it: not a big_round yet.
    expect(decides([...base.slice(0, 99), round(100, 0, Array(25).fill(2 * SOL))], 'rounds_since_big_round', '>=', 0)).toBe(false);
    expect(decides([...base, almost], 'rounds_since_big_round', '>=', 0)).toBe(false);
    expect(decides([...base, double], 'rounds_since_big_round', '==', 0)).toBe(true);
    expect(decides([...base, double, flatRound(102, 1), flatRound(103, 2), flatRound(104, 3)], 'rounds_since_big_round', '==', 3)).toBe(true);
  });

  it('chi_square_p_recent: p-value of the winners of the last hit_rate_lookback rounds', () => {
    const uniform = Array.from({ length: 25 }, (_, i) => flatRound(i + 1, i));
    expect(decides(uniform, 'chi_square_p_recent', '==', 1)).toBe(true);
    const same = Array.from({ length: 25 }, (_, i) => flatRound(i + 1, 0));
    // Statistic 600 (24^2 + 24 x 1): p far below 1e-6.
    expect(chiSquaredPValue24(600)).toBeLessThan(1e-100);
    expect(decides(same, 'chi_square_p_recent', '<', 1e-6)).toBe(true);
    expect(decides(same, 'chi_square_p_recent', '>', 0.05)).toBe(false);
    // 100 rounds with lookback 50: the last 50 are uniform (each square twice), so p = 1 despite the old bias.
    const old = Array.from({ length: 100 }, (_, i) => flatRound(i + 1, i < 50 ? 0 : i % 25));
    expect(decides(old, 'chi_square_p_recent', '==', 1, [0], 50)).toBe(true);
    expect(decides(old, 'chi_square_p_recent', '<', 1e-6)).toBe(true);
  });

  it('all filters must pass', () => {
    const prior = [withMiners(1, 10)];
    const dsl = normalizeDsl({
      base_strategy: 'custom_squares',
      params: { bet_size_lamports: B, custom_squares: [0] },
      filters: [
        { metric: 'total_miners', op: '==', value: 10 },
        { metric: 'consecutive_losses', op: '>', value: 0 },
      ],
    });
    const runner = createRunner(dsl, History.from(prior));
    runner.seek(1);
    expect(runner.decide().reason).toBe('filtered');
  });
});

describe('chi-squared p-value (24 degrees of freedom)', () => {
  it('matches the closed form at known points', () => {
    expect(chiSquaredPValue24(0)).toBe(1);
    // P(Poisson(12) <= 11)
    expect(chiSquaredPValue24(24)).toBeCloseTo(0.461597, 6);
    // The 5% critical value of chi-squared(24) is 36.415.
    expect(chiSquaredPValue24(36.415)).toBeCloseTo(0.05, 4);
  });
});
