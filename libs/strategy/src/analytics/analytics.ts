import type { Analytics, BacktestSummary } from '@gridlab/contracts';
import { resolveWindow, runWindow, windowSummary } from '../backtest/backtest';
import { headlineFigures, lamportsToSol, type HeadlineFigures } from '../backtest/result';
import { canonicalDslJson, normalizeDsl } from '../dsl/normalize';
import { SIZING_MODES, type Dsl } from '../dsl/types';
import { FIXED_SHAPE } from '../engine/select';
import type { History } from '../history/history';
import { normalUpperTail } from '../math/normal';
import { distribution, movingBlockBootstrap } from './bootstrap';
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

/** One parameter's sensitivity sweep, as the analytics contract carries it. */
export type Sweep = Analytics['sweeps'][number];
export type SweepPoint = Sweep['results'][number];

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

/** One sweep's values and the variant of the DSL each stands for (SPEC 7.9). */
interface SweepPlan {
  readonly param: string;
  readonly points: readonly { readonly value: number | string; readonly key: string }[];
}

/** The DSL with `param` replaced by each value; each variant by its canonical JSON. */
function plan(dsl: Dsl, param: string, values: readonly (number | string)[], variants: Map<string, Dsl>): SweepPlan {
  const points = values.map((value) => {
    const variant = normalizeDsl({ ...dsl, params: { ...dsl.params, [param]: value } });
    const key = canonicalDslJson(variant);
    variants.set(key, variant);
    return { value: (variant.params as unknown as Record<string, number | string>)[param]!, key };
  });
  return { param, points };
}

/** The four sweeps of SPEC 7.9, and the distinct variants they replay (in first-use order). */
function sweepPlans(dsl: Dsl): { readonly plans: readonly SweepPlan[]; readonly variants: ReadonlyMap<string, Dsl> } {
  const base = dsl.base_strategy;
  const variants = new Map<string, Dsl>();
  const plans = [
    FIXED_SHAPE.has(base)
      ? plan(dsl, 'bet_size_lamports', BET_SIZE_FACTORS.map((f) => Math.floor(dsl.params.bet_size_lamports * f)), variants)
      : plan(dsl, 'num_squares', NUM_SQUARES_VALUES, variants),
    base === 'drought' || base === 'cold' ? plan(dsl, 'drought_threshold', DROUGHT_VALUES, variants) : plan(dsl, 'hit_rate_lookback', LOOKBACK_VALUES, variants),
    plan(dsl, 'sizing_mode', SIZING_MODES, variants),
    plan(dsl, 'cooldown_after_loss_rounds', COOLDOWN_VALUES, variants),
  ];
  return { plans, variants };
}

/** One of `of` shares of an analytics call, each computed on its own (a worker thread each). */
export interface AnalyticsShare {
  readonly index: number;
  readonly of: number;
}

/**
 * What one share of an analytics call computed, as plain JSON (it crosses threads as
 * bytes; numbers round-trip exactly): its slice of the bootstrap's resamples and its
 * share of the sweeps' replays, beside the baseline every share replays.
 */
export interface AnalyticsPart {
  readonly share: AnalyticsShare;
  readonly asOfRoundId: number;
  readonly seed: number;
  readonly iterations: number;
  /** The baseline's summary (share 0 only: the others replay it for its per-round PnL). */
  readonly baseline: BacktestSummary | null;
  /** The random-outcome test's inputs, lamports (share 0 only). */
  readonly chance: { readonly net: number; readonly mean: number; readonly variance: number } | null;
  readonly bootstrap: {
    readonly blockLength: number;
    readonly net: readonly number[];
    readonly roiPercent: readonly number[];
    readonly maxDrawdown: readonly number[];
  };
  /** Headline figures of the sweep variants this share replayed, by canonical DSL JSON. */
  readonly replays: readonly (readonly [string, HeadlineFigures])[];
}

/** Share `index` of `of`'s slice of `count` items: [first, end). */
function slice(share: AnalyticsShare, count: number): { readonly first: number; readonly end: number } {
  return { first: Math.floor((count * share.index) / share.of), end: Math.floor((count * (share.index + 1)) / share.of) };
}

/**
 * One share of SPEC 7.9 analytics over the default backtest window: the baseline replay
 * (every share needs its per-round PnL), the share's slice of the bootstrap resamples and
 * every `of`-th distinct sweep variant. mergeAnalytics puts the shares together into
 * exactly what a single share of one gives.
 */
export function analyzeShare(history: History, dsl: Dsl, share: AnalyticsShare, options: AnalyticsOptions = {}): AnalyticsPart {
  if (!(Number.isInteger(share.of) && share.of >= 1 && Number.isInteger(share.index) && share.index >= 0 && share.index < share.of)) {
    throw new RangeError(`share ${share.index} of ${share.of} is not a share`);
  }
  const seed = (options.seed ?? DEFAULT_SEED) >>> 0;
  const iterations = options.iterations ?? ANALYTICS_ITERATIONS;
  const window = resolveWindow(history, options.toRoundId === undefined ? {} : { toRoundId: options.toRoundId });
  const runner = runWindow(history, dsl, window, { record: true, recordStakes: true, chanceMoments: true });
  const stats = runner.stats;
  const first = share.index === 0;
  const baseline = first ? windowSummary(runner) : null;
  const yieldPoint = options.yieldPoint ?? (() => undefined);
  yieldPoint();

  const pnl = stats.recordedPnl.subarray(0, stats.recorded);
  const stake = stats.recordedStake.subarray(0, stats.recorded);
  const samples = movingBlockBootstrap(pnl, stake, iterations, BLOCK_LENGTH, createPrng(seed), yieldPoint, slice(share, iterations));
  // The bootstrap is drawn: the record's arrays go to the next recording run on this thread
  // (a backtest nested at a yield point, the next call's baseline). The sweeps record nothing.
  runner.release();
  yieldPoint();

  // Sweeps share points (the DSL itself appears in most of them): each variant is
  // replayed once, by one share; the DSL's own figures are the baseline's.
  const own = canonicalDslJson(dsl);
  const variants = [...sweepPlans(dsl).variants].filter(([key]) => key !== own);
  const replays: [string, HeadlineFigures][] = [];
  for (let i = share.index; i < variants.length; i += share.of) {
    const [key, variant] = variants[i]!;
    replays.push([key, headlineFigures(runWindow(history, variant, window).stats)]);
    yieldPoint();
  }
  return {
    share,
    asOfRoundId: window.lastId,
    seed,
    iterations,
    baseline,
    chance: first ? { net: stats.net, mean: stats.chanceMean, variance: stats.chanceVariance } : null,
    bootstrap: { blockLength: samples.blockLength, net: Array.from(samples.net), roiPercent: Array.from(samples.roiPercent), maxDrawdown: Array.from(samples.maxDrawdown) },
    replays,
  };
}

/** Puts every share of one analytics call (any order) together into its SPEC 7.9 result. */
export function mergeAnalytics(dsl: Dsl, parts: readonly AnalyticsPart[]): Analytics {
  const ordered = [...parts].sort((a, b) => a.share.index - b.share.index);
  const head = ordered[0];
  if (head === undefined || head.baseline === null || head.chance === null) throw new RangeError('analytics needs its first share');
  const { baseline, chance, seed, iterations, asOfRoundId } = head;
  ordered.forEach((part, i) => {
    if (part.share.index !== i || part.share.of !== ordered.length) throw new RangeError(`share ${part.share.index} of ${part.share.of} does not belong with ${ordered.length} shares`);
    if (part.asOfRoundId !== asOfRoundId || part.seed !== seed || part.iterations !== iterations) throw new RangeError('the shares were computed over different windows or settings');
  });
  const column = (pick: (p: AnalyticsPart['bootstrap']) => readonly number[]): Float64Array => Float64Array.from(ordered.flatMap((p) => pick(p.bootstrap)));
  const net = column((b) => b.net);
  if (net.length !== iterations) throw new RangeError(`the shares hold ${net.length} of ${iterations} resamples`);
  let profitable = 0;
  for (const v of net) if (v > 0) profitable++;

  const figures = new Map<string, HeadlineFigures>(ordered.flatMap((p) => p.replays));
  figures.set(canonicalDslJson(dsl), baseline);
  const sweeps: Sweep[] = sweepPlans(dsl).plans.map(({ param, points }) => ({
    param,
    values: points.map((p) => p.value),
    results: points.map(({ value, key }) => {
      const s = figures.get(key);
      if (s === undefined) throw new RangeError(`no share replayed ${param} = ${value}`);
      return { value, roiPercent: s.roiPercent, netProfitSol: s.netProfitSol, maxDrawdownSol: s.maxDrawdownSol, winRate: s.winRate, roundsBet: s.roundsBet };
    }),
  }));

  const std = Math.sqrt(chance.variance);
  // With nothing at stake the result is exactly what chance gives: z 0, nothing better.
  const z = std > 0 ? (chance.net - chance.mean) / std : 0;
  return {
    asOfRoundId,
    baseline,
    monteCarlo: {
      iterations,
      seed,
      bootstrap: {
        method: 'moving block bootstrap',
        blockLength: head.bootstrap.blockLength,
        netProfitSol: distribution(net, 1e9),
        roiPercent: distribution(column((b) => b.roiPercent)),
        maxDrawdownSol: distribution(column((b) => b.maxDrawdown), 1e9),
        probabilityOfProfit: iterations > 0 ? profitable / iterations : 0,
      },
      randomOutcomes: {
        method: 'decisions fixed, winning squares uniform, normal approximation',
        expectedNetProfitSol: lamportsToSol(chance.mean),
        stdDevSol: lamportsToSol(std),
        zScore: z,
        pValue: std > 0 ? normalUpperTail(z) : 1,
      },
    },
    sweeps,
  };
}

/**
 * SPEC 7.9 analytics over the default backtest window: the baseline backtest, a moving
 * block bootstrap of its per-round PnL, the random-outcome test and four parameter
 * sweeps. Deterministic: identical history, DSL and options give identical output.
 */
export function analyze(history: History, dsl: Dsl, options: AnalyticsOptions = {}): Analytics {
  return mergeAnalytics(dsl, [analyzeShare(history, dsl, { index: 0, of: 1 }, options)]);
}
