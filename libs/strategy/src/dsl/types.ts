/** The 19 base strategies (SPEC 7.3), in the seed's order. */
export const BASE_STRATEGIES = [
  'cold',
  'spread',
  'drought',
  'custom_squares',
  'hot',
  'top_hit_rate',
  'bottom_hit_rate',
  'recent_winners',
  'anti_spread',
  'min_miners',
  'corners',
  'edges',
  'center_block',
  'diagonal_main',
  'diagonal_anti',
  'row',
  'column',
  'checkerboard',
  'all_25',
] as const;
export type BaseStrategy = (typeof BASE_STRATEGIES)[number];

/** The six sizing modes (SPEC 7.4). */
export const SIZING_MODES = ['flat', 'martingale', 'reverse_martingale', 'fibonacci', 'dalembert', 'kelly'] as const;
export type SizingMode = (typeof SIZING_MODES)[number];

/** The eight filter metrics (SPEC 7.5). */
export const FILTER_METRICS = [
  'rounds_since_last_big',
  'consecutive_losses',
  'current_drought_min',
  'current_drought_max',
  'total_deployed_pctile',
  'total_miners',
  'rounds_since_big_round',
  'chi_square_p_recent',
] as const;
export type FilterMetric = (typeof FILTER_METRICS)[number];

export const FILTER_OPS = ['<', '<=', '>', '>=', '=='] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** At most this many filters per DSL (SPEC 7.1). */
export const MAX_FILTERS = 16;

export interface DslFilter {
  readonly metric: FilterMetric;
  readonly op: FilterOp;
  readonly value: number;
}

/**
 * Normalized parameters: every param present with its default, integers floored and
 * everything clamped into range. `stop_loss_streak` is absent when off, and
 * `custom_squares` only when given (deduplicated, ascending).
 */
export interface DslParams {
  readonly bet_size_lamports: number;
  readonly sizing_mode: SizingMode;
  readonly num_squares: number;
  readonly drought_threshold: number;
  readonly hit_rate_lookback: number;
  readonly row_index: number;
  readonly column_index: number;
  readonly martingale_multiplier: number;
  readonly loss_streak_threshold: number;
  readonly dalembert_step_lamports: number;
  readonly kelly_fraction: number;
  readonly kelly_bankroll_lamports: number;
  readonly max_bet_per_square_lamports: number;
  readonly tx_fee_lamports: number;
  readonly cooldown_after_loss_rounds: number;
  readonly take_profit_lamports: number;
  readonly session_stop_loss_lamports: number;
  readonly stop_loss_streak?: number;
  readonly custom_squares?: readonly number[];
}

/** A normalized Strategy DSL: the form that is stored, returned, run and hashed. */
export interface Dsl {
  readonly base_strategy: BaseStrategy;
  readonly params: DslParams;
  readonly filters: readonly DslFilter[];
}
