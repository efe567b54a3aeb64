import { createHash } from 'node:crypto';
import { InputError, type FieldError } from '@gridlab/errors';
import Ajv, { type ErrorObject } from 'ajv';
import { NUMERIC_PARAMS, SQUARE_RULE, dslSchema, type NumericParamName, type NumericParamRule } from './schema';
import type { Dsl, DslFilter, DslParams } from './types';

const ajv = new Ajv({ allErrors: true, strict: true, strictNumbers: true });
const checkShape = ajv.compile(dslSchema);

/** Shape of an input that passed the schema (numbers not yet floored or clamped). */
interface RawDsl {
  base_strategy: Dsl['base_strategy'];
  params: Record<string, unknown> & { custom_squares?: number[] };
  filters?: DslFilter[];
}

/** RFC 6901 escaping of one path token. */
function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describe(e: ErrorObject, basePath: string): FieldError {
  const at = basePath + e.instancePath;
  switch (e.keyword) {
    case 'additionalProperties':
      return { path: `${at}/${pointerToken(String(e.params['additionalProperty']))}`, message: 'is not an accepted property' };
    case 'required':
      return { path: `${at}/${pointerToken(String(e.params['missingProperty']))}`, message: 'is required' };
    case 'enum':
      return { path: at || '/', message: `must be one of: ${(e.params['allowedValues'] as unknown[]).join(', ')}` };
    case 'maxItems':
      return { path: at || '/', message: `must have at most ${String(e.params['limit'])} items` };
    default:
      return { path: at || '/', message: e.message ?? 'is invalid' };
  }
}

function clamp(value: number, rule: NumericParamRule): number {
  const v = rule.integer ? Math.floor(value) : value;
  return v < rule.min ? rule.min : v > rule.max ? rule.max : v;
}

/**
 * Validates a Strategy DSL and returns its normalized form (SPEC 7.1): defaults filled
 * in, integer params floored, out-of-range numbers clamped, custom squares deduplicated
 * and sorted, `filters` always present. Throws InputError (`invalid_request`) listing
 * every problem with its JSON pointer, prefixed by `basePath` (e.g. `/dsl`).
 * Normalizing a normalized DSL returns an equal DSL.
 */
export function normalizeDsl(input: unknown, basePath = ''): Dsl {
  if (!checkShape(input)) {
    const errors = (checkShape.errors ?? []).map((e) => describe(e, basePath));
    throw new InputError(`invalid strategy DSL: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
  }
  const raw = input as RawDsl;
  const given = raw.params;
  if (raw.base_strategy === 'custom_squares' && (given.custom_squares === undefined || given.custom_squares.length === 0)) {
    const path = `${basePath}/params/custom_squares`;
    const message = given.custom_squares === undefined ? 'is required for base_strategy custom_squares' : 'must not be empty';
    throw new InputError(`invalid strategy DSL: ${path} ${message}`, { errors: [{ path, message }] });
  }
  const numeric = (name: NumericParamName): number => {
    const rule: NumericParamRule = NUMERIC_PARAMS[name];
    const value = given[name];
    return clamp(typeof value === 'number' ? value : (rule.default ?? rule.min), rule);
  };
  const params: DslParams = {
    bet_size_lamports: numeric('bet_size_lamports'),
    sizing_mode: (given['sizing_mode'] as DslParams['sizing_mode'] | undefined) ?? 'flat',
    num_squares: numeric('num_squares'),
    drought_threshold: numeric('drought_threshold'),
    hit_rate_lookback: numeric('hit_rate_lookback'),
    row_index: numeric('row_index'),
    column_index: numeric('column_index'),
    martingale_multiplier: numeric('martingale_multiplier'),
    loss_streak_threshold: numeric('loss_streak_threshold'),
    dalembert_step_lamports: numeric('dalembert_step_lamports'),
    kelly_fraction: numeric('kelly_fraction'),
    kelly_bankroll_lamports: numeric('kelly_bankroll_lamports'),
    max_bet_per_square_lamports: numeric('max_bet_per_square_lamports'),
    tx_fee_lamports: numeric('tx_fee_lamports'),
    cooldown_after_loss_rounds: numeric('cooldown_after_loss_rounds'),
    take_profit_lamports: numeric('take_profit_lamports'),
    session_stop_loss_lamports: numeric('session_stop_loss_lamports'),
    ...(typeof given['stop_loss_streak'] === 'number' ? { stop_loss_streak: numeric('stop_loss_streak') } : {}),
    ...(given.custom_squares === undefined
      ? {}
      : { custom_squares: [...new Set(given.custom_squares.map((s) => clamp(s, SQUARE_RULE)))].sort((a, b) => a - b) }),
  };
  const filters = (raw.filters ?? []).map((f) => ({ metric: f.metric, op: f.op, value: f.value }));
  return { base_strategy: raw.base_strategy, params, filters };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** JSON of a normalized DSL with object keys sorted at every level: equal DSLs give equal text. */
export function canonicalDslJson(dsl: Dsl): string {
  return JSON.stringify(canonical(dsl));
}

/** SHA-256 (hex) of the canonical JSON: the cache key of a DSL's analytics. */
export function dslHash(dsl: Dsl): string {
  return createHash('sha256').update(canonicalDslJson(dsl)).digest('hex');
}
