/**
 * The Strategy Lab engine (SPEC 7.1-7.9): pure and deterministic, no I/O. DSL
 * normalization, a columnar round history, the one stateful runner shared by backtest
 * and forward test, backtest results and analytics.
 */
export {
  BASE_STRATEGIES,
  SIZING_MODES,
  FILTER_METRICS,
  FILTER_OPS,
  MAX_FILTERS,
  type BaseStrategy,
  type SizingMode,
  type FilterMetric,
  type FilterOp,
  type DslFilter,
  type DslParams,
  type Dsl,
} from './dsl/types';
export { dslSchema } from './dsl/schema';
export { normalizeDsl, canonicalDslJson, dslHash } from './dsl/normalize';
export { History, SQUARES, PARIMUTUEL, RETURNS, type RoundInput } from './history/history';
export { chiSquaredPValue, chiSquaredPValue24, uniformityStatistic } from './math/chi-squared';
export { bigRoundFlags, bigRoundRuleTag, bigRoundThreshold, SPEC_BIG_ROUND_RULE, type BigRoundRule } from './history/big-rounds';
export { SortedWindow } from './engine/sorted-window';
export { createRunner, type Runner } from './engine/runner';
export type { RunnerOptions, RunSummary, Decision, DecisionReason, RoundOutcome } from './engine/types';
export type { ExitReason } from './engine/run-stats';
export { BetAccount, roiPercent } from './engine/bet-account';
export { payoutLamports, returnedLamports, oreEarned, oreValueLamports, ORE_UNITS, PAYOUT_REVISION } from './engine/payout';
export { backtest, resolveWindow, MAX_WINDOW_ROUNDS, type BacktestWindow, type ResolvedWindow } from './backtest/backtest';
export {
  downsampleIndexes,
  MAX_EQUITY_POINTS,
  type BacktestResult,
  type BacktestSummary,
  type EquityPoint,
  type PerSquareResult,
} from './backtest/result';
export {
  analyze,
  analyzeShare,
  mergeAnalytics,
  ANALYTICS_ITERATIONS,
  BLOCK_LENGTH,
  DEFAULT_SEED,
  type Analytics,
  type AnalyticsOptions,
  type AnalyticsPart,
  type AnalyticsShare,
  type Sweep,
  type SweepPoint,
} from './analytics/analytics';
export type { Distribution } from './analytics/bootstrap';
