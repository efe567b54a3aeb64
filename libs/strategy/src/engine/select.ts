import { BASE_STRATEGIES, type BaseStrategy, type Dsl } from '../dsl/types';
import { SQUARES, type History } from '../history/history';
import { droughtCounts, rankingOrder, type RankingKind } from '../history/rankings';
import { squareOrder, type OrderedColumn } from '../history/square-orders';
import type { Lookback, LookbackNeeds } from './lookback';

const CORNERS = [0, 4, 20, 24];
const EDGES = [1, 2, 3, 5, 9, 10, 14, 15, 19, 21, 22, 23];
const CENTER_BLOCK = [6, 7, 8, 11, 12, 13, 16, 17, 18];
const DIAGONAL_MAIN = [0, 6, 12, 18, 24];
const DIAGONAL_ANTI = [4, 8, 12, 16, 20];
const CHECKERBOARD = Array.from({ length: 13 }, (_, i) => 2 * i);
const ALL_25 = Array.from({ length: SQUARES }, (_, i) => i);

/** Strategies whose squares do not depend on history (k ignored, bet from the first round): custom_squares and the shapes, which close the seed's list from `corners` on. */
export const FIXED_SHAPE: ReadonlySet<BaseStrategy> = new Set<BaseStrategy>(['custom_squares', ...BASE_STRATEGIES.slice(BASE_STRATEGIES.indexOf('corners'))]);

// Rule codes for the per-round switch (numbers keep the hot loop monomorphic).
const FIXED = 0;
const COLD = 1;
const HOT = 2;
const DROUGHT = 3;
const RATE = 4;
const RECENT = 5;
const SPREAD = 6;
const ANTI_SPREAD = 7;
const MIN_MINERS = 8;

function fixedSquares(dsl: Dsl): number[] {
  const p = dsl.params;
  switch (dsl.base_strategy) {
    case 'custom_squares':
      return [...(p.custom_squares ?? [])];
    case 'corners':
      return CORNERS;
    case 'edges':
      return EDGES;
    case 'center_block':
      return CENTER_BLOCK;
    case 'diagonal_main':
      return DIAGONAL_MAIN;
    case 'diagonal_anti':
      return DIAGONAL_ANTI;
    case 'row':
      return Array.from({ length: 5 }, (_, c) => 5 * p.row_index + c);
    case 'column':
      return Array.from({ length: 5 }, (_, r) => 5 * r + p.column_index);
    case 'checkerboard':
      return CHECKERBOARD;
    default:
      return ALL_25;
  }
}

function ruleCode(base: BaseStrategy): number {
  switch (base) {
    case 'cold':
      return COLD;
    case 'hot':
      return HOT;
    case 'drought':
      return DROUGHT;
    case 'top_hit_rate':
    case 'bottom_hit_rate':
      return RATE;
    case 'recent_winners':
      return RECENT;
    case 'spread':
      return SPREAD;
    case 'anti_spread':
      return ANTI_SPREAD;
    case 'min_miners':
      return MIN_MINERS;
    default:
      return FIXED;
  }
}

/** The history-only ranking a base strategy reads its squares from, if any. */
function rankingKind(base: BaseStrategy): RankingKind | null {
  switch (base) {
    case 'cold':
    case 'drought':
    case 'recent_winners':
      return 'recency';
    case 'hot':
      return 'hot';
    case 'top_hit_rate':
      return 'top';
    case 'bottom_hit_rate':
      return 'bottom';
    default:
      return null;
  }
}

/** What the base strategy needs from the lookback state. */
export function selectionNeeds(base: BaseStrategy): Pick<LookbackNeeds, 'recency' | 'hot' | 'rateRanking'> {
  return {
    recency: base === 'cold' || base === 'drought' || base === 'recent_winners',
    hot: base === 'hot',
    rateRanking: base === 'top_hit_rate' ? 'top' : base === 'bottom_hit_rate' ? 'bottom' : null,
  };
}

const NO_COUNTS = new Uint8Array(0);

/** See SquareSelector.inlineChoice. */
export interface InlineChoice {
  readonly how: 'prefix' | 'drought' | 'won' | 'previous';
  readonly order: Int8Array;
  readonly k: number;
  /** drought: per round, how many squares are at the threshold (`droughtCounts`). */
  readonly counts: Uint8Array;
}

/** Chooses the squares of one round (SPEC 7.3). */
export class SquareSelector {
  /**
   * The squares of the last `select()`, in rule order: a ranking's own order array when
   * the rule is a prefix of one (no copy), else a buffer. Valid until the state changes.
   */
  chosen: Int8Array;
  private readonly rule: number;
  private readonly k: number;
  private readonly threshold: number;
  private readonly fixed: Int8Array;
  private readonly buffer = new Int8Array(SQUARES);
  private readonly column: OrderedColumn;
  private order: Int8Array | null = null;
  private orderCover = 0;
  private readonly rankingKind: RankingKind | null;
  private readonly lookback: number;

  constructor(dsl: Dsl) {
    this.rule = ruleCode(dsl.base_strategy);
    this.column = dsl.base_strategy === 'min_miners' ? 'count' : 'deployed';
    this.k = dsl.params.num_squares;
    this.threshold = dsl.params.drought_threshold;
    this.fixed = Int8Array.from(fixedSquares(dsl));
    this.chosen = this.fixed;
    this.rankingKind = rankingKind(dsl.base_strategy);
    this.lookback = dsl.params.hit_rate_lookback;
  }

  /**
   * The same choice as `select()`, described for a fused loop that reads it straight from
   * the history's precomputed arrays instead of a Lookback kept up to date (null for the
   * fixed shapes, which need neither). For the round at index i, with `seen` non-voided
   * rounds before it (none: no bet), `prev` the last of them and `lastWin` each square's
   * last winning ordinal, the squares are the first m of `order` from row `start`:
   * - `prefix`: start = i * 25, m = k (cold, hot, top/bottom hit rate: `rankingOrder`);
   * - `drought`: start = i * 25, m = min(k, counts[i]) (the squares at the threshold lead
   *   the recency ranking);
   * - `won`: the last m = min(k, squares that have won before) of row i (recent_winners:
   *   the most recent winners end the recency ranking; a fused settlement does not
   *   depend on the squares' order);
   * - `previous`: start = prev * 25, m = k (spread, min_miners, anti_spread: `squareOrder`).
   * The arrays cover the history as it is now.
   */
  inlineChoice(h: History): InlineChoice | null {
    const rule = this.rule;
    const k = this.k;
    switch (rule) {
      case SPREAD:
      case MIN_MINERS:
        return { how: 'previous', order: squareOrder(h, this.column), k, counts: NO_COUNTS };
      case ANTI_SPREAD:
        return { how: 'previous', order: squareOrder(h, 'deployedDescending'), k, counts: NO_COUNTS };
      case COLD:
      case HOT:
      case RATE:
        return { how: 'prefix', order: rankingOrder(h, this.rankingKind!, this.lookback), k, counts: NO_COUNTS };
      case DROUGHT:
        return { how: 'drought', order: rankingOrder(h, 'recency', this.lookback), k, counts: droughtCounts(h, this.threshold) };
      case RECENT:
        return { how: 'won', order: rankingOrder(h, 'recency', this.lookback), k, counts: NO_COUNTS };
      default:
        return null;
    }
  }

  /** Chooses the squares (into `chosen`) and returns how many. */
  select(lb: Lookback, h: History): number {
    const rule = this.rule;
    if (rule === FIXED) {
      this.chosen = this.fixed;
      return this.fixed.length;
    }
    // Every other rule reads history: with no previous round there is no bet.
    if (lb.seen === 0) return 0;
    const k = this.k;
    switch (rule) {
      case HOT:
        this.chosen = lb.hotRanking!.order;
        return k;
      case RATE:
        this.chosen = lb.rateRanking!.order;
        return k;
      case COLD:
      case DROUGHT: {
        // Longest drought first; drought stops at the threshold.
        const list = lb.recency!;
        const out = this.buffer;
        const min = rule === DROUGHT ? this.threshold : 0;
        let m = 0;
        for (let s = list.first(); m < k && s < SQUARES; s = list.after(s)) {
          if (min > 0 && lb.drought(s) < min) break;
          out[m++] = s;
        }
        this.chosen = out;
        return m;
      }
      case RECENT: {
        // Newest last win first, never-won squares excluded.
        const list = lb.recency!;
        const out = this.buffer;
        let m = 0;
        for (let s = list.last(); m < k && s < SQUARES; s = list.before(s)) {
          if (lb.lastWin[s]! < 0) break;
          out[m++] = s;
        }
        this.chosen = out;
        return m;
      }
      case SPREAD:
      case MIN_MINERS:
        return this.fromOrder(h, lb.prev, false);
      default:
        return this.fromOrder(h, lb.prev, true);
    }
  }

  /**
   * The k squares of the previous round with the least (or, descending, the most)
   * deployed SOL or miners, ties by lower index, read from the History's derived orders.
   */
  private fromOrder(h: History, prev: number, descending: boolean): number {
    if (this.order === null || prev >= this.orderCover) {
      this.order = squareOrder(h, this.column);
      this.orderCover = h.length;
    }
    const order = this.order;
    const base = prev * SQUARES;
    const k = this.k;
    const out = this.buffer;
    this.chosen = out;
    if (!descending) {
      for (let j = 0; j < k; j++) out[j] = order[base + j]!;
      return k;
    }
    // Read from the end, but a group of equal values keeps its ascending square order.
    const values = h.deployed;
    let m = 0;
    let r = SQUARES - 1;
    while (m < k) {
      const v = values[base + order[base + r]!]!;
      let g = r;
      while (g > 0 && values[base + order[base + g - 1]!]! === v) g--;
      for (let j = g; j <= r && m < k; j++) out[m++] = order[base + j]!;
      r = g - 1;
    }
    return m;
  }
}
