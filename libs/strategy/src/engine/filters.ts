import type { DslFilter, FilterMetric, FilterOp } from '../dsl/types';
import { SQUARES, type History } from '../history/history';
import { chiSquaredPValue24 } from '../math/chi-squared';
import type { Lookback } from './lookback';

const METRIC_CODES: Record<FilterMetric, number> = {
  rounds_since_last_big: 0,
  consecutive_losses: 1,
  current_drought_min: 2,
  current_drought_max: 3,
  total_deployed_pctile: 4,
  total_miners: 5,
  rounds_since_big_round: 6,
  chi_square_p_recent: 7,
};
const OP_CODES: Record<FilterOp, number> = { '<': 0, '<=': 1, '>': 2, '>=': 3, '==': 4 };

/** Metrics whose lookback structures must be maintained for these filters. */
export function filterNeeds(filters: readonly DslFilter[]): { windowCounts: boolean; deployedWindow: boolean; bigPayout: boolean; bigRound: boolean } {
  const uses = (m: FilterMetric): boolean => filters.some((f) => f.metric === m);
  return {
    windowCounts: uses('chi_square_p_recent'),
    deployedWindow: uses('total_deployed_pctile'),
    bigPayout: uses('rounds_since_last_big'),
    bigRound: uses('rounds_since_big_round'),
  };
}

/**
 * The value of a filter metric at decision time (SPEC 7.5), or NaN when there is too
 * little history: NaN fails every comparison, so such a filter fails.
 */
function metricValue(
  metric: number,
  lb: Lookback,
  h: History,
  lossStreak: number,
  squares: Int8Array,
  m: number,
): number {
  if (metric === 1) return lossStreak;
  if (lb.seen === 0) return Number.NaN;
  switch (metric) {
    case 0:
      return lb.lastBigPayout < 0 ? Number.NaN : lb.seen - 1 - lb.lastBigPayout;
    case 2:
    case 3: {
      let min = Infinity;
      let max = -Infinity;
      for (let j = 0; j < m; j++) {
        const d = lb.drought(squares[j]!);
        if (d < min) min = d;
        if (d > max) max = d;
      }
      return m === 0 ? Number.NaN : metric === 2 ? min : max;
    }
    case 4: {
      const window = lb.deployedWindow!;
      return (100 * window.countAtMost(h.totalDeployed[lb.prev]!)) / window.size;
    }
    case 5:
      return h.totalMiners[lb.prev]!;
    case 6:
      return lb.lastBigRound < 0 ? Number.NaN : lb.seen - 1 - lb.lastBigRound;
    default: {
      const n = Math.min(lb.seen, lb.lookback);
      const statistic = (SQUARES * lb.windowSumSquares) / n - n;
      return chiSquaredPValue24(statistic);
    }
  }
}

function compare(op: number, a: number, b: number): boolean {
  switch (op) {
    case 0:
      return a < b;
    case 1:
      return a <= b;
    case 2:
      return a > b;
    case 3:
      return a >= b;
    default:
      return a === b;
  }
}

/** The filters of one DSL, compiled to codes for the per-round check. */
export class FilterSet {
  readonly size: number;
  private readonly metrics: Int8Array;
  private readonly ops: Int8Array;
  private readonly values: Float64Array;

  constructor(filters: readonly DslFilter[]) {
    this.size = filters.length;
    this.metrics = Int8Array.from(filters.map((f) => METRIC_CODES[f.metric]));
    this.ops = Int8Array.from(filters.map((f) => OP_CODES[f.op]));
    this.values = Float64Array.from(filters.map((f) => f.value));
  }

  /** True when every filter passes for the chosen squares. */
  pass(lb: Lookback, h: History, lossStreak: number, squares: Int8Array, m: number): boolean {
    for (let f = 0; f < this.size; f++) {
      const value = metricValue(this.metrics[f]!, lb, h, lossStreak, squares, m);
      if (!compare(this.ops[f]!, value, this.values[f]!)) return false;
    }
    return true;
  }
}
