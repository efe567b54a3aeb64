import { Lookback } from '../engine/lookback';
import { SQUARES, type History } from './history';

/**
 * A ranking of the squares that depends on the history alone (not on a DSL's stakes or
 * stops): `recency` least recently won first, never-won squares first (cold, drought,
 * and read from the end, recent_winners), `hot` most wins in the last 50 first,
 * `top`/`bottom` most/fewest wins over a lookback.
 */
export type RankingKind = 'recency' | 'hot' | 'top' | 'bottom';

/** Rankings (and drought counts) kept per History, least recently used dropped first. */
const MAX_CACHED = 8;

class RankingCache {
  order = new Int8Array(0);
  done = 0;
  private readonly lb: Lookback;

  constructor(
    h: History,
    private readonly kind: RankingKind,
    lookback: number,
  ) {
    this.lb = new Lookback(h, {
      recency: kind === 'recency',
      hot: kind === 'hot',
      rateRanking: kind === 'top' || kind === 'bottom' ? kind : null,
      windowCounts: false,
      deployedWindow: false,
      bigPayout: false,
      bigRound: false,
      lookback,
    });
  }

  /** Derives the ranking before each round not covered yet, with the engine's own Lookback. */
  extend(h: History): void {
    if (this.order.length < h.length * SQUARES) {
      const next = new Int8Array(Math.max(h.length, (this.order.length / SQUARES) * 2) * SQUARES);
      next.set(this.order);
      this.order = next;
    }
    const { winning } = h;
    const order = this.order;
    const lb = this.lb;
    const ranked = this.kind === 'hot' ? lb.hotRanking!.order : this.kind === 'top' || this.kind === 'bottom' ? lb.rateRanking!.order : null;
    for (let i = this.done; i < h.length; i++) {
      const base = i * SQUARES;
      if (ranked !== null) {
        order.set(ranked, base);
      } else {
        const list = lb.recency!;
        let r = 0;
        for (let s = list.first(); s < SQUARES; s = list.after(s)) order[base + r++] = s;
      }
      const w = winning[i]!;
      if (w >= 0) lb.observe(i, w);
    }
    this.done = h.length;
  }
}

// Derived once per History and extended as it grows; shared by every runner on it.
const rankings = new WeakMap<History, Map<string, RankingCache>>();

/**
 * For every stored round i, the ranking of the squares as it stands before round i (from
 * the non-voided rounds before it): order[i * 25 + rank] = square. A long backtest reads
 * its squares from here instead of keeping the ranking up to date round by round; the
 * result is the same (the same Lookback derives it). 25 bytes per round per ranking.
 */
export function rankingOrder(history: History, kind: RankingKind, lookback: number): Int8Array {
  const key = kind === 'top' || kind === 'bottom' ? `${kind}:${lookback}` : kind;
  return derived(rankings, history, key, () => new RankingCache(history, kind, lookback)).order;
}

/** What a derived per-round array keeps: how many rounds it covers, and how to cover more. */
interface Derived {
  readonly done: number;
  extend(h: History): void;
}

/**
 * The derived array `key` of `history`, created on first use and extended to the
 * history's length; at most MAX_CACHED per History and family, least recently used
 * dropped first.
 */
function derived<T extends Derived>(family: WeakMap<History, Map<string, T>>, history: History, key: string, create: () => T): T {
  let entry = family.get(history);
  if (entry === undefined) {
    entry = new Map();
    family.set(history, entry);
  }
  let cache = entry.get(key);
  if (cache === undefined) {
    cache = create();
    if (entry.size >= MAX_CACHED) entry.delete(entry.keys().next().value!);
  } else {
    entry.delete(key);
  }
  entry.set(key, cache);
  if (cache.done < history.length) cache.extend(history);
  return cache;
}

class DroughtCounts {
  counts = new Uint8Array(0);
  done = 0;
  seen = 0;
  readonly lastWin = new Float64Array(SQUARES).fill(-1);

  constructor(private readonly threshold: number) {}

  extend(h: History): void {
    if (this.counts.length < h.length) {
      const next = new Uint8Array(Math.max(h.length, this.counts.length * 2));
      next.set(this.counts);
      this.counts = next;
    }
    const { winning } = h;
    const lastWin = this.lastWin;
    const limit = this.threshold + 1;
    for (let i = this.done; i < h.length; i++) {
      // Squares whose drought (seen - 1 - lastWin) reaches the threshold before round i.
      let n = 0;
      for (let s = 0; s < SQUARES; s++) if (this.seen - lastWin[s]! >= limit) n++;
      this.counts[i] = n;
      const w = winning[i]!;
      if (w >= 0) lastWin[w] = this.seen++;
    }
    this.done = h.length;
  }
}

const droughts = new WeakMap<History, Map<string, DroughtCounts>>();

/**
 * For every stored round i, how many squares have gone at least `threshold` non-voided
 * rounds without winning before round i: the drought rule bets on that many squares (at
 * most k) from the front of the recency ranking. 1 byte per round per threshold in use
 * (at most 8 kept).
 */
export function droughtCounts(history: History, threshold: number): Uint8Array {
  return derived(droughts, history, String(threshold), () => new DroughtCounts(threshold)).counts;
}
