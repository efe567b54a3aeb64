/** The Strategy Lab form's model: what the inputs hold, and the DSL they make. */
import type { StrategyDsl } from '@gridlab/client';

export const BASE_STRATEGIES = [
  'cold', 'spread', 'drought', 'custom_squares', 'hot', 'top_hit_rate', 'bottom_hit_rate', 'recent_winners', 'anti_spread', 'min_miners',
  'corners', 'edges', 'center_block', 'diagonal_main', 'diagonal_anti', 'row', 'column', 'checkerboard', 'all_25',
] as const;
export const SIZING_MODES = ['flat', 'martingale', 'reverse_martingale', 'fibonacci', 'dalembert', 'kelly'] as const;
export const FILTER_METRICS = [
  'rounds_since_last_big', 'consecutive_losses', 'current_drought_min', 'current_drought_max', 'total_deployed_pctile', 'total_miners', 'rounds_since_big_round', 'chi_square_p_recent',
] as const;
export const FILTER_OPS = ['<', '<=', '>', '>=', '=='] as const;

export type BaseStrategy = (typeof BASE_STRATEGIES)[number];
export type SizingMode = (typeof SIZING_MODES)[number];

/** Which inputs each base strategy reads (besides bet size, sizing, stops and filters). */
export const STRATEGY_PARAMS: Readonly<Record<BaseStrategy, readonly ('num_squares' | 'drought_threshold' | 'hit_rate_lookback' | 'row_index' | 'column_index' | 'custom_squares')[]>> = {
  cold: ['num_squares', 'hit_rate_lookback'],
  spread: ['num_squares'],
  drought: ['num_squares', 'drought_threshold'],
  custom_squares: ['custom_squares'],
  hot: ['num_squares', 'hit_rate_lookback'],
  top_hit_rate: ['num_squares', 'hit_rate_lookback'],
  bottom_hit_rate: ['num_squares', 'hit_rate_lookback'],
  recent_winners: ['num_squares'],
  anti_spread: ['num_squares'],
  min_miners: ['num_squares'],
  corners: [],
  edges: [],
  center_block: [],
  diagonal_main: [],
  diagonal_anti: [],
  row: ['row_index'],
  column: ['column_index'],
  checkerboard: [],
  all_25: [],
};

/** Which inputs each sizing mode reads. */
export const SIZING_PARAMS: Readonly<Record<SizingMode, readonly ('martingale_multiplier' | 'loss_streak_threshold' | 'dalembert_step_sol' | 'kelly_fraction' | 'kelly_bankroll_sol')[]>> = {
  flat: [],
  martingale: ['martingale_multiplier', 'loss_streak_threshold'],
  reverse_martingale: ['martingale_multiplier', 'loss_streak_threshold'],
  fibonacci: ['loss_streak_threshold'],
  dalembert: ['dalembert_step_sol'],
  kelly: ['kelly_fraction', 'kelly_bankroll_sol'],
};

interface FilterInput {
  metric: string;
  op: string;
  value: string;
}

/** Every input as typed (strings: an empty input is an omitted parameter). Amounts are in SOL. */
export interface FormState {
  base_strategy: BaseStrategy;
  sizing_mode: SizingMode;
  bet_size_sol: string;
  num_squares: string;
  drought_threshold: string;
  hit_rate_lookback: string;
  row_index: string;
  column_index: string;
  custom_squares: string;
  martingale_multiplier: string;
  loss_streak_threshold: string;
  dalembert_step_sol: string;
  kelly_fraction: string;
  kelly_bankroll_sol: string;
  max_bet_per_square_sol: string;
  tx_fee_sol: string;
  stop_loss_streak: string;
  take_profit_sol: string;
  session_stop_loss_sol: string;
  cooldown_after_loss_rounds: string;
  filters: FilterInput[];
  fromRoundId: string;
  toRoundId: string;
}

export const INITIAL_FORM: FormState = {
  base_strategy: 'cold',
  sizing_mode: 'flat',
  bet_size_sol: '0.01',
  num_squares: '5',
  drought_threshold: '50',
  hit_rate_lookback: '1000',
  row_index: '0',
  column_index: '0',
  custom_squares: '',
  martingale_multiplier: '2',
  loss_streak_threshold: '1',
  dalembert_step_sol: '0.0001',
  kelly_fraction: '0.25',
  kelly_bankroll_sol: '1',
  max_bet_per_square_sol: '',
  tx_fee_sol: '0.000005',
  stop_loss_streak: '',
  take_profit_sol: '',
  session_stop_loss_sol: '',
  cooldown_after_loss_rounds: '',
  filters: [],
  fromRoundId: '',
  toRoundId: '',
};

/** The input (form key) each DSL parameter is typed in: field errors of the API land there. */
const PARAM_INPUT: Readonly<Record<string, keyof FormState>> = {
  bet_size_lamports: 'bet_size_sol',
  dalembert_step_lamports: 'dalembert_step_sol',
  kelly_bankroll_lamports: 'kelly_bankroll_sol',
  max_bet_per_square_lamports: 'max_bet_per_square_sol',
  tx_fee_lamports: 'tx_fee_sol',
  take_profit_lamports: 'take_profit_sol',
  session_stop_loss_lamports: 'session_stop_loss_sol',
};

/**
 * A typed number, or the text itself when it is not one: the API then names the field
 * and why (the form validates nothing the API does not).
 */
function number(text: string): number | string {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

function lamports(text: string): number | string {
  const n = number(text);
  return typeof n === 'number' ? Math.round(n * 1e9) : n;
}

/** The DSL the form describes: only the inputs that apply, empty ones omitted. */
export function toDsl(form: FormState): StrategyDsl {
  const params: Record<string, unknown> = { sizing_mode: form.sizing_mode };
  const put = (name: string, text: string, convert: (t: string) => number | string = number) => {
    if (text.trim() !== '') params[name] = convert(text);
  };
  put('bet_size_lamports', form.bet_size_sol, lamports);
  for (const p of STRATEGY_PARAMS[form.base_strategy]) {
    if (p === 'custom_squares') {
      const list = form.custom_squares.split(/[\s,]+/).filter((t) => t !== '');
      params['custom_squares'] = list.map(number);
    } else put(p, form[p]);
  }
  for (const p of SIZING_PARAMS[form.sizing_mode]) {
    if (p === 'dalembert_step_sol') put('dalembert_step_lamports', form.dalembert_step_sol, lamports);
    else if (p === 'kelly_bankroll_sol') put('kelly_bankroll_lamports', form.kelly_bankroll_sol, lamports);
    else put(p, form[p]);
  }
  put('max_bet_per_square_lamports', form.max_bet_per_square_sol, lamports);
  put('tx_fee_lamports', form.tx_fee_sol, lamports);
  put('stop_loss_streak', form.stop_loss_streak);
  put('take_profit_lamports', form.take_profit_sol, lamports);
  put('session_stop_loss_lamports', form.session_stop_loss_sol, lamports);
  put('cooldown_after_loss_rounds', form.cooldown_after_loss_rounds);
  const filters = form.filters.map((f) => ({ metric: f.metric, op: f.op, value: number(f.value) }));
  return { base_strategy: form.base_strategy, params, ...(filters.length > 0 ? { filters } : {}) } as unknown as StrategyDsl;
}

/**
 * The form key an API field error belongs to: `/dsl/params/bet_size_lamports` →
 * `bet_size_sol`, `/dsl/filters/0/value` → `filters/0/value`, `/fromRoundId` → `fromRoundId`.
 */
export function fieldOf(path: string): string {
  const rest = path.replace(/^\/(dsl\/)?/, '');
  const param = /^params\/([a-z_]+)/.exec(rest)?.[1];
  if (param !== undefined) return PARAM_INPUT[param] ?? param;
  return rest === '' ? 'form' : rest;
}
