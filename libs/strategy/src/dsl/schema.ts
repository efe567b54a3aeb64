import type { SchemaObject } from 'ajv';
import { BASE_STRATEGIES, FILTER_METRICS, FILTER_OPS, MAX_FILTERS, SIZING_MODES } from './types';

/** Lamport params with no upper bound in the seed are clamped to what a double holds exactly. */
const MAX_LAMPORTS = Number.MAX_SAFE_INTEGER;

/** How one numeric param is normalized: floored when `integer`, then clamped to [min, max]. */
export interface NumericParamRule {
  readonly integer: boolean;
  readonly min: number;
  readonly max: number;
  /** Absent: the param is required (`bet_size_lamports`) or optional-off (`stop_loss_streak`). */
  readonly default?: number;
}

/** Ranges from the seed's Limits table; defaults from SPEC 7.1. */
export const NUMERIC_PARAMS = {
  bet_size_lamports: { integer: true, min: 1, max: 1e8 },
  num_squares: { integer: true, min: 1, max: 25, default: 5 },
  drought_threshold: { integer: true, min: 1, max: 1000, default: 50 },
  hit_rate_lookback: { integer: true, min: 50, max: 20_000, default: 1000 },
  row_index: { integer: true, min: 0, max: 4, default: 0 },
  column_index: { integer: true, min: 0, max: 4, default: 0 },
  martingale_multiplier: { integer: false, min: 1, max: 10, default: 2 },
  loss_streak_threshold: { integer: true, min: 1, max: 100, default: 1 },
  dalembert_step_lamports: { integer: true, min: 1, max: 1e6, default: 100_000 },
  kelly_fraction: { integer: false, min: 0.0001, max: 1, default: 0.25 },
  kelly_bankroll_lamports: { integer: true, min: 1, max: MAX_LAMPORTS, default: 1_000_000_000 },
  max_bet_per_square_lamports: { integer: true, min: 1, max: 1e8, default: 100_000_000 },
  tx_fee_lamports: { integer: true, min: 0, max: 1e7, default: 5000 },
  stop_loss_streak: { integer: true, min: 1, max: 1000 },
  cooldown_after_loss_rounds: { integer: true, min: 0, max: 500, default: 0 },
  take_profit_lamports: { integer: true, min: 0, max: MAX_LAMPORTS, default: 0 },
  session_stop_loss_lamports: { integer: true, min: 0, max: MAX_LAMPORTS, default: 0 },
} as const satisfies Record<string, NumericParamRule>;

export type NumericParamName = keyof typeof NUMERIC_PARAMS;

/** Custom squares are floored and clamped like any number, then deduplicated. */
export const SQUARE_RULE: NumericParamRule = { integer: true, min: 0, max: 24 };

/** A rule as the API documents it: `Integer (floored), 1..25, clamped; default 5`. */
function describeRule(name: NumericParamName, rule: NumericParamRule): string {
  const bound = (n: number): string => (n === MAX_LAMPORTS ? '2^53-1' : String(n));
  const absent = rule.default !== undefined ? `default ${rule.default}` : name === 'bet_size_lamports' ? 'required' : 'absent = off';
  return `${rule.integer ? 'Integer (floored), ' : ''}${bound(rule.min)}..${bound(rule.max)}, clamped; ${absent}`;
}

// Numbers are typed `number` (not `integer`): 5.7 squares is floored, not rejected.
const numericProperties = Object.fromEntries(
  Object.entries(NUMERIC_PARAMS).map(([name, rule]) => [name, { type: 'number', description: describeRule(name as NumericParamName, rule) }]),
);

/**
 * JSON Schema of the Strategy DSL as a client sends it. It checks shape and types only:
 * ranges are not errors (values are clamped by `normalizeDsl`).
 */
export const dslSchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-dsl',
  description:
    'A Strategy DSL (seed and SPEC 7.1-7.6). Shape and types only: numbers out of range are clamped, integer params floored, omitted params take their defaults.',
  type: 'object',
  additionalProperties: false,
  required: ['base_strategy', 'params'],
  properties: {
    base_strategy: { type: 'string', enum: [...BASE_STRATEGIES] },
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['bet_size_lamports'],
      properties: {
        ...numericProperties,
        sizing_mode: { type: 'string', enum: [...SIZING_MODES], description: 'default flat' },
        custom_squares: {
          type: 'array',
          items: { type: 'number' },
          description: 'Squares 0..24 (floored, clamped, deduplicated); required and non-empty for base_strategy custom_squares',
        },
      },
    },
    filters: {
      type: 'array',
      maxItems: MAX_FILTERS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['metric', 'op', 'value'],
        properties: {
          metric: { type: 'string', enum: [...FILTER_METRICS] },
          op: { type: 'string', enum: [...FILTER_OPS] },
          value: { type: 'number' },
        },
      },
    },
  },
};
