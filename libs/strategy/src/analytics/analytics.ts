import type { Analytics } from '@gridlab/contracts';
import { resolveWindow, runWindow, windowSummary, type ResolvedWindow } from '../backtest/backtest';
import { headlineFigures, lamportsToSol, type HeadlineFigures } from '../backtest/result';
import { canonicalDslJson, normalizeDsl } from '../dsl/normalize';
import { SIZING_MODES, type Dsl } from '../dsl/types';
import { FIXED_SHAPE } from '../engine/select';
import type { History } from '../history/history';
import { normalUpperTail } from '../math/normal';
import { distribution, movingBlockBootstrap, type Distribution } from './bootstrap';
import { createPrng } from './prng';

/** SPEC 7.9 fixed figures. */
export const ANALYTICS_ITERATIONS = 1000;
export const BLOCK_LENGTH = 20;
/** Seed used when none is given: one seed for every DSL, so strategies are compared on the same draws. */
export const DEFAULT_SEED = 7_091_226;

const NUM_SQUARES_VALUES = [1, 2, 3, 5, 8, 12, 25];
const BET_SIZE_FACTORS = [0.25, 0.5, 1, 2, 4];
const DROUGHT_VALUES = [10, 25, 50, 75, 100, 150];
const LOOKBACK_VALUES = [50, 100, 250, 500, 1000, 2500];
const COOLDOWN_VALUES = [0, 1, 2, 5, 10];

export interface SweepPoint {
  readonly value: number | string;
  readonly roiPercent: number;
  readonly netProfitSol: number;
  readonly maxDrawdownSol: number;
  readonly winRate: number;
  readonly roundsBet: number;
}

export interface Sweep {
  readonly param: string;
  readonly values: readonly (number | string)[];
  readonly results: readonly SweepPoint[];
}

/** SPEC 7.9 analytics: the contract's type, built here and sent as it is. */
export type { Analytics } from '@gridlab/contracts';

export interface AnalyticsOptions {
  /** PRNG seed of the bootstrap (default DEFAULT_SEED). */
  readonly seed?: number;
  /** Bootstrap resamples (default 1000). */
  readonly iterations?: number;
  /** End of the default window (default: the latest stored round). */
  readonly toRoundId?: number;
  /**
   * Called between the call's replays and every few bootstrap resamples (a few ms apart):
   * a host may run other, shorter work there (lab-backtest serves another client's
   * backtest on the same thread). It must leave the history as it found it.
   */
  readonly yieldPoint?: () => void;
}

/**
 * Headline figures of the DSL variants already replayed in one analytics call, by
 * canonical JSON (only those: a full summary copies every losing streak's length, a fresh
 * array per sweep point).
 */
type Replays = Map<string, HeadlineFigures>;

/** One sweep: the DSL with `param` replaced by each value, replayed over the same window. */
function sweep(history: History, dsl: Dsl, window: ResolvedWindow, replays: Replays, param: string, values: readonly (number | string)[], yieldPoint: () => void): Sweep {
  const reported: (number | string)[] = [];
  const results = values.map((value) => {
    const variant = normalizeDsl({ ...dsl, params: { ...dsl.params, [param]: value } });
    const actual = (variant.params as unknown as Record<string, number | string>)[param]!;
    reported.push(actual);
    // Sweeps share points (the DSL itself appears in most of them): replay each variant once.
    const key = canonicalDslJson(variant);
    let s = replays.get(key);
    if (s === undefined) {
      s = headlineFigures(runWindow(history, variant, window).stats);
      replays.set(key, s);
      yieldPoint();
    }
    return { value: actual, roiPercent: s.roiPercent, netProfitSol: s.netProfitSol, maxDrawdownSol: s.maxDrawdownSol, winRate: s.winRate, roundsBet: s.roundsBet };
  });
  return { param, values: reported, results };
}

/** The four sweeps of SPEC 7.9. */
function sweeps(history: History, dsl: Dsl, window: ResolvedWindow, replays: Replays, yieldPoint: () => void): Sweep[] {
  const base = dsl.base_strategy;
  const size = FIXED_SHAPE.has(base)
    ? sweep(history, dsl, window, replays, 'bet_size_lamports', BET_SIZE_FACTORS.map((f) => Math.floor(dsl.params.bet_size_lamports * f)), yieldPoint)
    : sweep(history, dsl, window, replays, 'num_squares', NUM_SQUARES_VALUES, yieldPoint);
  const lookback =
    base === 'drought' || base === 'cold'
      ? sweep(history, dsl, window, replays, 'drought_threshold', DROUGHT_VALUES, yieldPoint)
      : sweep(history, dsl, window, replays, 'hit_rate_lookback', LOOKBACK_VALUES, yieldPoint);
  return [
    size,
    lookback,
    sweep(history, dsl, window, replays, 'sizing_mode', SIZING_MODES, yieldPoint),
    sweep(history, dsl, window, replays, 'cooldown_after_loss_rounds', COOLDOWN_VALUES, yieldPoint),
  ];
}

/**
 * SPEC 7.9 analytics over the default backtest window: the baseline backtest, a moving
 * block bootstrap of its per-round PnL, the random-outcome test and four parameter
 * sweeps. Deterministic: identical history, DSL and options give identical output.
 */
export function analyze(history: History, dsl: Dsl, options: AnalyticsOptions = {}): Analytics {
  const seed = (options.seed ?? DEFAULT_SEED) >>> 0;
  const iterations = options.iterations ?? ANALYTICS_ITERATIONS;
  const window = resolveWindow(history, options.toRoundId === undefined ? {} : { toRoundId: options.toRoundId });
  const runner = runWindow(history, dsl, window, { record: true, recordStakes: true, chanceMoments: true });
  const stats = runner.stats;
  const baseline = windowSummary(runner);
  const yieldPoint = options.yieldPoint ?? (() => undefined);
  yieldPoint();

  const pnl = stats.recordedPnl.subarray(0, stats.recorded);
  const stake = stats.recordedStake.subarray(0, stats.recorded);
  const samples = movingBlockBootstrap(pnl, stake, iterations, BLOCK_LENGTH, createPrng(seed), yieldPoint);
  yieldPoint();
  let profitable = 0;
  for (const v of samples.net) if (v > 0) profitable++;

  const std = Math.sqrt(stats.chanceVariance);
  // With nothing at stake the result is exactly what chance gives: z 0, nothing better.
  const z = std > 0 ? (stats.net - stats.chanceMean) / std : 0;
  return {
    asOfRoundId: window.lastId,
    baseline,
    monteCarlo: {
      iterations,
      seed,
      bootstrap: {
        method: 'moving block bootstrap',
        blockLength: samples.blockLength,
        netProfitSol: distribution(samples.net, 1e9),
        roiPercent: distribution(samples.roiPercent),
        maxDrawdownSol: distribution(samples.maxDrawdown, 1e9),
        probabilityOfProfit: iterations > 0 ? profitable / iterations : 0,
      },
      randomOutcomes: {
        method: 'decisions fixed, winning squares uniform, normal approximation',
        expectedNetProfitSol: lamportsToSol(stats.chanceMean),
        stdDevSol: lamportsToSol(std),
        zScore: z,
        pValue: std > 0 ? normalUpperTail(z) : 1,
      },
    },
    sweeps: sweeps(history, dsl, window, new Map([[canonicalDslJson(dsl), baseline]]), yieldPoint),
  };
}
