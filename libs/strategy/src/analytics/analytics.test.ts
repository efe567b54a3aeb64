import fc from 'fast-check';
import { backtest } from '../backtest/backtest';
import { normalizeDsl } from '../dsl/normalize';
import { BASE_STRATEGIES, SIZING_MODES } from '../dsl/types';
import { History } from '../history/history';
import { normalUpperTail } from '../math/normal';
import { arbitraryHistory, fixtureRounds, flatRound } from '../testing/fixtures';
import { analyze, analyzeShare, mergeAnalytics, type AnalyticsPart } from './analytics';
import { blockTable, distribution, movingBlockBootstrap, quantile } from './bootstrap';
import { createPrng } from './prng';

const B = 1_000_000;

function history(n: number): History {
  // A repeating but irregular winner pattern with a few voided rounds.
  return History.from(Array.from({ length: n }, (_, i) => flatRound(i + 1, i % 97 === 5 ? null : (i * 7 + (i >> 3)) % 25)));
}

describe('analytics', () => {
  const h = history(600);
  const cold = normalizeDsl({ base_strategy: 'cold', params: { bet_size_lamports: B } });

  it('is identical for identical input, and the seed drives the bootstrap', () => {
    const a = analyze(h, cold);
    expect(analyze(h, cold)).toEqual(a);
    expect(analyze(h, cold, { seed: 1 }).monteCarlo.bootstrap).not.toEqual(a.monteCarlo.bootstrap);
    expect(analyze(h, cold, { seed: 1 })).toEqual(analyze(h, cold, { seed: 1 }));
  });

  it('gives identical output for identical input, whatever the history and strategy', () => {
    fc.assert(
      fc.property(arbitraryHistory(1, 120), fc.constantFrom(...BASE_STRATEGIES), fc.constantFrom(...SIZING_MODES), (rounds, base, mode) => {
        if (rounds.every((r) => r.winningSquare === null)) return;
        const dsl = normalizeDsl({ base_strategy: base, params: { bet_size_lamports: B, sizing_mode: mode, custom_squares: [1, 5] } });
        const first = analyze(History.from(rounds), dsl, { iterations: 40 });
        expect(analyze(History.from(rounds.map((r) => ({ ...r }))), dsl, { iterations: 40 })).toEqual(first);
      }),
      { numRuns: 40 },
    );
  });

  it('has the SPEC 7.9 shape: baseline, 1000 bootstrap resamples of 20-round blocks, random outcomes, four sweeps', () => {
    const a = analyze(h, cold);
    const { equityCurve, perRoundPnlLamports, ...summary } = backtest(h, cold);
    expect(equityCurve.length).toBeGreaterThan(0);
    expect(perRoundPnlLamports).toHaveLength(summary.totalRounds);
    expect(a.asOfRoundId).toBe(600);
    expect(a.baseline).toEqual(summary);
    expect(a.monteCarlo).toMatchObject({ iterations: 1000, bootstrap: { method: 'moving block bootstrap', blockLength: 20 } });
    expect(a.monteCarlo.randomOutcomes.method).toBe('decisions fixed, winning squares uniform, normal approximation');
    const { netProfitSol, probabilityOfProfit } = a.monteCarlo.bootstrap;
    expect(netProfitSol.p5).toBeLessThanOrEqual(netProfitSol.p50);
    expect(netProfitSol.p50).toBeLessThanOrEqual(netProfitSol.p95);
    expect(probabilityOfProfit).toBeGreaterThanOrEqual(0);
    expect(probabilityOfProfit).toBeLessThanOrEqual(1);
    // Every figure is a finite number (a resample's ROI needs the per-round stakes).
    const numbers = (v: unknown): number[] => (typeof v === 'number' ? [v] : v !== null && typeof v === 'object' ? Object.values(v).flatMap(numbers) : []);
    expect(numbers(a).filter((n) => !Number.isFinite(n))).toEqual([]);
    const roi = a.monteCarlo.bootstrap.roiPercent;
    expect(roi.p5).toBeLessThanOrEqual(roi.p50);
    expect(Math.sign(roi.p50)).toBe(Math.sign(netProfitSol.p50));
    expect(a.sweeps.map((s) => [s.param, s.values])).toEqual([
      ['num_squares', [1, 2, 3, 5, 8, 12, 25]],
      ['drought_threshold', [10, 25, 50, 75, 100, 150]],
      ['sizing_mode', [...SIZING_MODES]],
      ['cooldown_after_loss_rounds', [0, 1, 2, 5, 10]],
    ]);
    // A sweep point is the backtest of the modified DSL over the same window.
    const eight = backtest(h, normalizeDsl({ base_strategy: 'cold', params: { bet_size_lamports: B, num_squares: 8 } }));
    expect(a.sweeps[0]!.results[4]).toEqual({
      value: 8,
      roiPercent: eight.roiPercent,
      netProfitSol: eight.netProfitSol,
      maxDrawdownSol: eight.maxDrawdownSol,
      winRate: eight.winRate,
      roundsBet: eight.roundsBet,
    });
  });

  it('sweeps bet size for fixed shapes and hit_rate_lookback for other history rules', () => {
    const corners = analyze(h, normalizeDsl({ base_strategy: 'corners', params: { bet_size_lamports: 60_000_000 } }));
    // x0.25 .. x4, clamped to the 1e8 maximum.
    expect(corners.sweeps[0]).toMatchObject({ param: 'bet_size_lamports', values: [15_000_000, 30_000_000, 60_000_000, 100_000_000, 100_000_000] });
    const hot = analyze(h, normalizeDsl({ base_strategy: 'hot', params: { bet_size_lamports: B } }));
    expect(hot.sweeps[1]).toMatchObject({ param: 'hit_rate_lookback', values: [50, 100, 250, 500, 1000, 2500] });
  });

  it('tests against chance with the exact mean and variance of each round under a uniform winner', () => {
    // Two rounds betting square 0 (1 SOL on every square): a hit pays 22,352,637, a miss loses the stake.
    const two = History.from([flatRound(1, 0), flatRound(2, 3)]);
    const dsl = normalizeDsl({ base_strategy: 'custom_squares', params: { bet_size_lamports: B, custom_squares: [0] } });
    const cost = B + 5000;
    const outcomes = [22_352_637 - cost, ...Array(24).fill(-cost)] as number[];
    const mean = outcomes.reduce((a, b) => a + b, 0) / 25;
    const variance = outcomes.reduce((a, b) => a + (b - mean) ** 2, 0) / 25;
    const observed = 22_352_637 - cost - cost;
    const r = analyze(two, dsl).monteCarlo.randomOutcomes;
    expect(r.expectedNetProfitSol).toBeCloseTo((2 * mean) / 1e9, 12);
    expect(r.stdDevSol).toBeCloseTo(Math.sqrt(2 * variance) / 1e9, 12);
    expect(r.zScore).toBeCloseTo((observed - 2 * mean) / Math.sqrt(2 * variance), 10);
    expect(r.pValue).toBeCloseTo(normalUpperTail(r.zScore), 12);
  });

  it('with nothing bet, the result is exactly chance: z 0, p 1', () => {
    const a = analyze(h, normalizeDsl({ base_strategy: 'drought', params: { bet_size_lamports: B, drought_threshold: 1000 } }));
    expect(a.monteCarlo.randomOutcomes).toMatchObject({ expectedNetProfitSol: 0, stdDevSol: 0, zScore: 0, pValue: 1 });
    expect(a.monteCarlo.bootstrap.probabilityOfProfit).toBe(0);
  });

  it('split into shares, computed apart and sent as JSON, merges into exactly the whole call', () => {
    fc.assert(
      fc.property(
        arbitraryHistory(1, 150),
        fc.constantFrom(...BASE_STRATEGIES),
        fc.constantFrom(...SIZING_MODES),
        fc.integer({ min: 1, max: 5 }),
        fc.nat(),
        (rounds, base, mode, of, seed) => {
          if (rounds.every((r) => r.winningSquare === null)) return;
          const dsl = normalizeDsl({ base_strategy: base, params: { bet_size_lamports: B, sizing_mode: mode, custom_squares: [2, 11] } });
          const hist = History.from(rounds);
          const options = { iterations: 37, seed };
          const parts = Array.from({ length: of }, (_, index) => JSON.parse(JSON.stringify(analyzeShare(hist, dsl, { index, of }, options))) as AnalyticsPart);
          // Shares arrive in any order.
          const merged = mergeAnalytics(dsl, [...parts].reverse());
          expect(JSON.stringify(merged)).toBe(JSON.stringify(analyze(hist, dsl, options)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses shares that do not make one whole call', () => {
    const part = (index: number, of: number, toRoundId?: number): AnalyticsPart => analyzeShare(h, cold, { index, of }, { iterations: 10, ...(toRoundId === undefined ? {} : { toRoundId }) });
    expect(() => analyzeShare(h, cold, { index: 2, of: 2 })).toThrow(RangeError);
    expect(() => mergeAnalytics(cold, [part(1, 2)])).toThrow(/first share/);
    expect(() => mergeAnalytics(cold, [part(0, 3), part(1, 3)])).toThrow(/does not belong/);
    expect(() => mergeAnalytics(cold, [part(0, 2), part(1, 2, 500)])).toThrow(/different windows/);
    expect(mergeAnalytics(cold, [part(1, 2), part(0, 2)])).toEqual(analyze(h, cold, { iterations: 10 }));
  });

  it('analyzes a window ending at toRoundId', () => {
    expect(analyze(History.from(fixtureRounds()), cold, { toRoundId: 15 }).asOfRoundId).toBe(15);
  });
});

describe('moving block bootstrap', () => {
  /** The same resampling done the slow way: build each series and walk it. */
  function naive(pnl: number[], stake: number[], iterations: number, block: number, seed: number) {
    const random = createPrng(seed);
    const n = pnl.length;
    const b = Math.min(block, n);
    const out = [];
    for (let it = 0; it < iterations; it++) {
      const series: number[] = [];
      let staked = 0;
      while (series.length < n) {
        const s = Math.floor(random.next() * (n - b + 1));
        for (let t = s; t < s + b && series.length < n; t++) {
          series.push(pnl[t]!);
          staked += stake[t]!;
        }
      }
      let level = 0;
      let peak = 0;
      let dd = 0;
      for (const x of series) {
        level += x;
        peak = Math.max(peak, level);
        dd = Math.max(dd, peak - level);
      }
      out.push({ net: level, roi: staked > 0 ? (100 * level) / staked : 0, dd });
    }
    return out;
  }

  it('equals building and walking every resampled series', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -2000, max: 2000 }), { minLength: 1, maxLength: 90 }),
        fc.integer({ min: 1, max: 25 }),
        fc.nat(),
        (pnl, block, seed) => {
          const stake = pnl.map((x) => Math.abs(x) % 7);
          const fast = movingBlockBootstrap(Float64Array.from(pnl), Float64Array.from(stake), 30, block, createPrng(seed));
          const slow = naive(pnl, stake, 30, block, seed);
          expect(Array.from(fast.net)).toEqual(slow.map((s) => s.net));
          expect(Array.from(fast.roiPercent)).toEqual(slow.map((s) => s.roi));
          expect(Array.from(fast.maxDrawdown)).toEqual(slow.map((s) => s.dd));
        },
      ),
    );
  });

  it('builds the block table in one pass exactly as walking each block does', () => {
    /**
     * Each block by definition: its prefix sums P (with P0 = 0), their extremes, and the
     * largest P_i − P_j over i <= j, pair by pair.
     */
    const walked = (pnl: readonly number[], stake: readonly number[], b: number): number[] => {
      const out: number[] = [];
      for (let s = 0; s + b <= pnl.length; s++) {
        const prefixes = [0];
        for (let t = s; t < s + b; t++) prefixes.push(prefixes[prefixes.length - 1]! + pnl[t]!);
        let fall = 0;
        prefixes.forEach((high, i) => prefixes.slice(i).forEach((low) => (fall = Math.max(fall, high - low))));
        const staked = stake.slice(s, s + b).reduce((a, v) => a + v, 0);
        out.push(prefixes[b]!, staked, Math.min(...prefixes), Math.max(...prefixes), fall);
      }
      return out;
    };
    const lamports = fc.oneof(fc.integer({ min: -2000, max: 2000 }), fc.integer({ min: -(2 ** 46), max: 2 ** 46 }), fc.constantFrom(0, 2 ** 46, -(2 ** 46)));
    fc.assert(
      fc.property(fc.array(lamports, { minLength: 1, maxLength: 130 }), fc.integer({ min: 1, max: 40 }), (pnl, block) => {
        const b = Math.min(block, pnl.length);
        const stake = pnl.map((x) => Math.abs(x) % 1_000_003);
        expect(Array.from(blockTable(Float64Array.from(pnl), Float64Array.from(stake), b))).toEqual(walked(pnl, stake, b));
      }),
    );
    // Fractions and sums past 2^53 are walked block by block: the same figures, rounding included.
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e17, max: 1e17, noNaN: true }), { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 25 }), (pnl, block) => {
        const b = Math.min(block, pnl.length);
        const stake = pnl.map((x) => Math.abs(x) / 3);
        expect(Array.from(blockTable(Float64Array.from(pnl), Float64Array.from(stake), b))).toEqual(walked(pnl, stake, b));
      }),
    );
  });

  it('computes any range of the resamples exactly as the whole run does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -2000, max: 2000 }), { minLength: 1, maxLength: 90 }), fc.integer({ min: 1, max: 25 }), fc.nat(), fc.nat(30), fc.nat(30), (pnl, block, seed, x, y) => {
        const [first, end] = x <= y ? [x, y] : [y, x];
        const stake = Float64Array.from(pnl, (v) => Math.abs(v) % 5);
        const whole = movingBlockBootstrap(Float64Array.from(pnl), stake, 30, block, createPrng(seed));
        const part = movingBlockBootstrap(Float64Array.from(pnl), stake, 30, block, createPrng(seed), undefined, { first, end });
        expect(Array.from(part.net)).toEqual(Array.from(whole.net.subarray(first, end)));
        expect(Array.from(part.roiPercent)).toEqual(Array.from(whole.roiPercent.subarray(first, end)));
        expect(Array.from(part.maxDrawdown)).toEqual(Array.from(whole.maxDrawdown.subarray(first, end)));
      }),
    );
    expect(() => movingBlockBootstrap(Float64Array.of(1), Float64Array.of(1), 10, 1, createPrng(1), undefined, { first: 4, end: 11 })).toThrow(RangeError);
  });

  it('summarizes with interpolated percentiles', () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5]);
    expect(quantile(sorted, 0.5)).toBe(3);
    expect(quantile(sorted, 0.05)).toBeCloseTo(1.2, 12);
    expect(distribution(Float64Array.from([5, 1, 3, 2, 4]), 10)).toEqual({ p5: quantile(sorted, 0.05) / 10, p50: 0.3, p95: quantile(sorted, 0.95) / 10, mean: 0.3 });
  });
});

describe('seeded PRNG', () => {
  it('repeats its sequence for a seed and spreads values over [0, 1)', () => {
    const a = createPrng(42);
    const b = createPrng(42);
    const xs = Array.from({ length: 10_000 }, () => a.next());
    expect(Array.from({ length: 10_000 }, () => b.next())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
    expect(createPrng(43).next()).not.toBe(createPrng(42).next());
  });

  it('draws indices in a batch exactly as one call per draw would, and goes on from there', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 2 ** 28 - 1 }), fc.integer({ min: 1, max: 8 }), (seed, count, bound, scale) => {
        const a = createPrng(seed);
        const b = createPrng(seed);
        a.next();
        b.next();
        const batch = new Int32Array(count);
        a.drawIndices(batch, count, bound, scale);
        const one = Array.from({ length: count }, () => Math.floor(b.next() * bound) * scale);
        expect(Array.from(batch)).toEqual(one);
        expect(a.next()).toBe(b.next());
      }),
    );
  });

  it('skips draws exactly as drawing them would', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(500), (seed, count) => {
        const a = createPrng(seed);
        const b = createPrng(seed);
        a.skip(count);
        for (let i = 0; i < count; i++) b.next();
        expect([a.next(), a.next()]).toEqual([b.next(), b.next()]);
      }),
    );
  });
});

describe('normal upper tail', () => {
  it('matches reference values', () => {
    expect(normalUpperTail(0)).toBe(0.5);
    expect(normalUpperTail(1.959963984540054)).toBeCloseTo(0.025, 14);
    expect(normalUpperTail(-1)).toBeCloseTo(0.8413447460685429, 14);
    expect(normalUpperTail(3)).toBeCloseTo(0.0013498980316301, 15);
    expect(normalUpperTail(5) / 2.866515718791939e-7).toBeCloseTo(1, 10);
    expect(normalUpperTail(2.4)).toBeCloseTo(0.008197535924596131, 14);
    expect(normalUpperTail(4.2) / 1.334574901590633e-5).toBeCloseTo(1, 10);
  });
});
