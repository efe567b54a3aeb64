import { bigRoundFlags } from '../history/big-rounds';
import { SQUARES, type History } from '../history/history';
import { RankedSquares } from './ranked-squares';
import { RecencyList } from './recency-list';
import { SortedWindow } from './sorted-window';

/** `hot` counts wins over this many rounds (SPEC 7.3). */
const HOT_WINDOW = 50;
/** rounds_since_last_big: the winning square paid at least 24x (SPEC 7.5). */
const BIG_PAYOUT_RATIO = 24;
/** Keeps the hot ranking key exact: count * 2^40 + (last win ordinal + 1) < 2^53. */
const HOT_COUNT_SCALE = 2 ** 40;

/** Which incremental structures a DSL needs; nothing else is maintained. */
export interface LookbackNeeds {
  /** Squares ordered by current drought (cold, drought, recent_winners). */
  readonly recency: boolean;
  /** Wins in the last 50 rounds and their ranking (hot). */
  readonly hot: boolean;
  /** Ranking by wins over `lookback`: highest (top) or lowest (bottom) first. */
  readonly rateRanking: 'top' | 'bottom' | null;
  /** Wins per square over `lookback` (top/bottom hit rate, kelly, chi-squared). */
  readonly windowCounts: boolean;
  /** Sorted totalDeployed of the last `lookback` rounds (total_deployed_pctile). */
  readonly deployedWindow: boolean;
  readonly bigPayout: boolean;
  readonly bigRound: boolean;
  readonly lookback: number;
}

function isBigPayout(h: History, i: number, w: number): boolean {
  const dw = h.deployed[i * SQUARES + w]!;
  // Nobody on the winning square means nobody was paid: not a big payout.
  return dw > 0 && h.totalWinnings[i]! / dw >= BIG_PAYOUT_RATIO;
}

/**
 * Everything a decision may look back at, kept up to date one settled (non-voided)
 * round at a time in O(1)-ish work per round: droughts, rolling win counts and their
 * rankings, the previous round, and the filter metrics' windows.
 */
export class Lookback {
  /** Non-voided rounds observed: the number of "rounds before" the next decision. */
  seen = 0;
  /** History index of the previous non-voided round, -1 before the first. */
  prev = -1;
  /** Ordinal of each square's last win, -1 if it never won. */
  readonly lastWin = new Float64Array(SQUARES).fill(-1);
  readonly recency: RecencyList | null;
  readonly hotRanking: RankedSquares | null;
  readonly rateRanking: RankedSquares | null;
  readonly hotCounts: Int32Array | null;
  readonly windowCounts: Int32Array | null;
  /** Sum of squared window counts (chi-squared statistic in O(1)). */
  windowSumSquares = 0;
  readonly deployedWindow: SortedWindow | null;
  lastBigPayout = -1;
  lastBigRound = -1;
  /** Recent winners by ordinal t at ring[t % ringSize]; `ringNext` is where `seen` goes. */
  private readonly ring: Int8Array | null;
  private readonly ringSize: number;
  private ringNext = 0;
  private readonly rateSign: number;
  private readonly tracksBigPayout: boolean;
  private readonly tracksBigRound: boolean;
  private bigFlags: Uint8Array | null = null;
  private bigFlagsCover = 0;

  constructor(
    private readonly h: History,
    private readonly needs: LookbackNeeds,
  ) {
    this.recency = needs.recency ? new RecencyList() : null;
    this.hotRanking = needs.hot ? new RankedSquares() : null;
    this.rateRanking = needs.rateRanking === null ? null : new RankedSquares();
    this.rateSign = needs.rateRanking === 'bottom' ? -1 : 1;
    this.hotCounts = needs.hot ? new Int32Array(SQUARES) : null;
    this.windowCounts = needs.windowCounts || needs.rateRanking !== null ? new Int32Array(SQUARES) : null;
    this.ringSize = Math.max(needs.hot ? HOT_WINDOW : 0, this.windowCounts === null ? 0 : needs.lookback);
    this.ring = this.ringSize > 0 ? new Int8Array(this.ringSize) : null;
    this.deployedWindow = needs.deployedWindow ? new SortedWindow(needs.lookback) : null;
    this.tracksBigPayout = needs.bigPayout;
    this.tracksBigRound = needs.bigRound;
    this.resetRankings();
  }

  get lookback(): number {
    return this.needs.lookback;
  }

  /** Current drought of a square: settled rounds since it last won (all of them if never). */
  drought(square: number): number {
    return this.seen - 1 - this.lastWin[square]!;
  }

  /** Takes in the non-voided round at index i (the next one after everything seen). */
  observe(i: number, w: number): void {
    const h = this.h;
    const t = this.seen;
    const ring = this.ring;
    let hotOut = -1;
    let rateOut = -1;
    if (ring !== null) {
      // Ring positions by wrap-around arithmetic: an integer % per round is measurable here.
      const size = this.ringSize;
      const at = this.ringNext;
      const hotCounts = this.hotCounts;
      if (hotCounts !== null) {
        if (t >= HOT_WINDOW) {
          const from = at - HOT_WINDOW;
          hotOut = ring[from < 0 ? from + size : from]!;
          hotCounts[hotOut]!--;
        }
        hotCounts[w]!++;
      }
      const counts = this.windowCounts;
      if (counts !== null) {
        const lookback = this.needs.lookback;
        if (t >= lookback) {
          const from = at - lookback;
          rateOut = ring[from < 0 ? from + size : from]!;
          const c = counts[rateOut]!;
          this.windowSumSquares -= 2 * c - 1;
          counts[rateOut] = c - 1;
        }
        const c = counts[w]!;
        this.windowSumSquares += 2 * c + 1;
        counts[w] = c + 1;
      }
      ring[at] = w;
      this.ringNext = at + 1 === size ? 0 : at + 1;
    }
    this.lastWin[w] = t;
    this.recency?.touch(w);
    const hot = this.hotRanking;
    if (hot !== null) {
      hot.set(w, this.hotKey(w));
      if (hotOut >= 0 && hotOut !== w) hot.set(hotOut, this.hotKey(hotOut));
    }
    const rate = this.rateRanking;
    if (rate !== null) {
      rate.set(w, this.rateSign * this.windowCounts![w]!);
      if (rateOut >= 0 && rateOut !== w) rate.set(rateOut, this.rateSign * this.windowCounts![rateOut]!);
    }
    this.deployedWindow?.push(h.totalDeployed[i]!);
    if (this.tracksBigPayout && isBigPayout(h, i, w)) this.lastBigPayout = t;
    if (this.tracksBigRound && this.bigRoundAt(i)) this.lastBigRound = t;
    this.prev = i;
    this.seen = t + 1;
  }

  /**
   * Rebuilds the state as if every round of `history` before index `k` had been
   * observed, scanning backwards only as far as the windows and "last time" facts need.
   */
  rebuild(k: number): void {
    const h = this.h;
    const needs = this.needs;
    const seen = k < h.length ? h.ordinals[k]! : h.settledCount;
    this.seen = seen;
    this.prev = -1;
    this.lastWin.fill(-1);
    this.hotCounts?.fill(0);
    this.windowCounts?.fill(0);
    this.windowSumSquares = 0;
    this.lastBigPayout = -1;
    this.lastBigRound = -1;
    const deployedRecent: number[] = [];
    const windowSpan = Math.max(this.ringSize, this.deployedWindow === null ? 0 : needs.lookback);
    let unseenSquares = SQUARES;
    for (let i = k - 1; i >= 0; i--) {
      const w = this.h.winning[i]!;
      if (w < 0) continue;
      const t = h.ordinals[i]!;
      const age = seen - 1 - t;
      if (this.prev < 0) this.prev = i;
      if (this.ring !== null && age < this.ringSize) this.ring[t % this.ringSize] = w;
      if (this.hotCounts !== null && age < HOT_WINDOW) this.hotCounts[w]!++;
      if (this.windowCounts !== null && age < needs.lookback) this.windowCounts[w]!++;
      if (this.deployedWindow !== null && age < needs.lookback) deployedRecent.push(h.totalDeployed[i]!);
      if (this.lastWin[w]! < 0) {
        this.lastWin[w] = t;
        unseenSquares--;
      }
      if (needs.bigPayout && this.lastBigPayout < 0 && isBigPayout(h, i, w)) this.lastBigPayout = t;
      if (needs.bigRound && this.lastBigRound < 0 && this.bigRoundAt(i)) this.lastBigRound = t;
      const done =
        age + 1 >= windowSpan && unseenSquares === 0 && (!needs.bigPayout || this.lastBigPayout >= 0) && (!needs.bigRound || this.lastBigRound >= 0);
      if (done) break;
    }
    if (this.windowCounts !== null) {
      for (let s = 0; s < SQUARES; s++) this.windowSumSquares += this.windowCounts[s]! ** 2;
    }
    if (this.ring !== null) this.ringNext = seen % this.ringSize;
    if (this.deployedWindow !== null) {
      this.deployedWindow.clear();
      for (let j = deployedRecent.length - 1; j >= 0; j--) this.deployedWindow.push(deployedRecent[j]!);
    }
    this.resetRankings();
  }

  private resetRankings(): void {
    const keys = new Float64Array(SQUARES);
    this.recency?.rebuild(this.lastWin);
    if (this.hotRanking !== null) {
      for (let s = 0; s < SQUARES; s++) keys[s] = this.hotKey(s);
      this.hotRanking.reset(keys);
    }
    if (this.rateRanking !== null) {
      for (let s = 0; s < SQUARES; s++) keys[s] = this.rateSign * this.windowCounts![s]!;
      this.rateRanking.reset(keys);
    }
  }

  /** More wins in the last 50 first; then the more recent last win. */
  private hotKey(s: number): number {
    return this.hotCounts![s]! * HOT_COUNT_SCALE + (this.lastWin[s]! + 1);
  }

  private bigRoundAt(i: number): boolean {
    if (this.bigFlags === null || i >= this.bigFlagsCover) {
      this.bigFlags = bigRoundFlags(this.h);
      this.bigFlagsCover = this.h.length;
    }
    return this.bigFlags[i] === 1;
  }
}
