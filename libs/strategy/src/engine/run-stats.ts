import type { ExitReason } from '@gridlab/contracts';
import type { DslParams } from '../dsl/types';
import { RETURNS, SQUARES, type History } from '../history/history';
import { BetAccount } from './bet-account';
import { oreEarned, oreValueLamports, payoutLamports, returnedLamports } from './payout';

/** Why a run stopped early (SPEC 7.6), in order of precedence: the contract's type. */
export type { ExitReason } from '@gridlab/contracts';

const INITIAL_RECORD = 1024;
/** A released record array at least this long is kept for the next run. */
const SPARE_MIN = 1 << 16;
/** Record arrays kept on a thread: a recording run holds one, or two with stakes. */
const SPARES_MAX = 2;
const NO_RECORD = new Float64Array(0);

/**
 * Record arrays of released runs (RunStats.release), taken by the next runs on this
 * thread. Otherwise a million-round record is 8 MB of fresh memory a run, and the first
 * touch of a fresh page costs ~2 µs (4 KiB) where the host has backed it, and many times
 * more where it has not: up to half a replay's time (docs/operations.md). A reused array
 * holds old values; a run writes every entry it records, bet or not.
 */
const spares: Float64Array[] = [];

/** An array of at least `size` entries: the smallest spare that fits, else a new one. */
function takeRecord(size: number): Float64Array {
  let best = -1;
  for (let i = 0; i < spares.length; i++) {
    const length = spares[i]!.length;
    if (length >= size && (best < 0 || length < spares[best]!.length)) best = i;
  }
  return best < 0 ? new Float64Array(size) : spares.splice(best, 1)[0]!;
}

/** Keeps `a` for a later run, if it is among the largest arrays released. */
function giveBack(a: Float64Array): void {
  if (a.length < SPARE_MIN) return;
  spares.push(a);
  spares.sort((x, y) => y.length - x.length);
  spares.length = Math.min(spares.length, SPARES_MAX);
}

function grow(a: Float64Array, size: number): Float64Array {
  const next = takeRecord(Math.max(size, a.length * 2));
  next.set(a);
  return next;
}

/**
 * The lengths of the losing streaks that ended, in order: an Int32Array that doubles as
 * it fills. A JS array grown by push lives in V8's large-object space once past ~16,000
 * entries and takes fresh pages at every growth (a million-round replay ends ~130,000
 * streaks: ~900 page faults a run, a quarter of an unrecorded replay's time on a VM where
 * a fresh page costs 10-17 µs); a typed array's memory comes from malloc, which reuses it.
 */
export class StreakLengths {
  private lengths = new Int32Array(256);
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(length: number): void {
    if (this.count === this.lengths.length) {
      const next = new Int32Array(this.count * 2);
      next.set(this.lengths);
      this.lengths = next;
    }
    this.lengths[this.count++] = length;
  }

  /** The lengths as an array, with `open` (a streak still running, when > 0) at the end. */
  toArray(open: number): number[] {
    const out = Array.from(this.lengths.subarray(0, this.count));
    if (open > 0) out.push(open);
    return out;
  }
}

/**
 * Running accounts of one run (SPEC 7.8): the bet-rounds' figures (BetAccount), recovery,
 * cap figures, per-square figures, stops, and optionally the per-round series and the
 * chance moments that analytics use. All in lamports; results convert to SOL at the edge.
 */
export class RunStats extends BetAccount {
  totalRecovery = 0;
  capHits = 0;
  /** Sum of the losses (as positive lamports) of losing rounds with a cap hit. */
  capLoss = 0;
  /** Lengths of the losing streaks that ended, in order (see `streakRunLengths()`). */
  readonly endedStreaks = new StreakLengths();
  // Per square; the runner's settlement loop updates these directly.
  readonly betCount = new Float64Array(SQUARES);
  readonly winCount = new Float64Array(SQUARES);
  /** Staked per square, unless every stake is `constantStake` (then betCount x it). */
  readonly staked = new Float64Array(SQUARES);
  constantStake = 0;
  readonly paid = new Float64Array(SQUARES);
  exit: ExitReason | null = null;
  /** History index of the round that triggered the exit (ids are looked up at the end). */
  exitIndex = -1;
  /** Sum over bet-rounds of the mean / variance of PnL with a uniformly random winner. */
  chanceMean = 0;
  chanceVariance = 0;
  /**
   * Per-round series (when recording): PnL and, with `recordStakes`, total stake of each
   * non-voided round taken in bet mode, in order (the k-th entry is the k-th such round).
   */
  recordedPnl: Float64Array = NO_RECORD;
  recordedStake: Float64Array = NO_RECORD;
  recorded = 0;
  private readonly chancePnl = new Float64Array(SQUARES);

  readonly stopStreak: number;
  readonly takeProfit: number;
  readonly stopLoss: number;
  private readonly fee: number;

  constructor(
    readonly history: History,
    params: DslParams,
    readonly record: boolean,
    readonly chance: boolean,
    /** With `record`, keep each round's total stake too (analytics' bootstrap needs it; a backtest result does not). */
    readonly recordStakes = false,
  ) {
    super();
    this.stopStreak = params.stop_loss_streak ?? 0;
    this.takeProfit = params.take_profit_lamports;
    this.stopLoss = params.session_stop_loss_lamports;
    this.fee = params.tx_fee_lamports;
    if (record) {
      this.recordedPnl = takeRecord(INITIAL_RECORD);
      if (recordStakes) this.recordedStake = takeRecord(INITIAL_RECORD);
    }
  }

  /** Net lamports of one square (payouts less stakes, fees excluded). */
  squareNet(s: number): number {
    const staked = this.constantStake > 0 ? this.betCount[s]! * this.constantStake : this.staked[s]!;
    return this.paid[s]! - staked;
  }

  get exitRoundId(): number | null {
    return this.exitIndex < 0 ? null : this.history.ids[this.exitIndex]!;
  }

  /**
   * Makes room for `more` recorded rounds at once (a window's worth), so recording never
   * regrows mid-run. Entries beyond `recorded` hold any value (see `spares`).
   */
  reserve(more: number): void {
    const size = this.recorded + more;
    // The two arrays may differ in length (either may be a spare).
    if (size > this.recordedPnl.length) this.recordedPnl = grow(this.recordedPnl, size);
    if (this.recordStakes && size > this.recordedStake.length) this.recordedStake = grow(this.recordedStake, size);
  }

  /** Every losing streak's length in order, the one still open at the end included. */
  streakRunLengths(): number[] {
    return this.endedStreaks.toArray(this.streak);
  }

  /**
   * Hands the record arrays on to the next recording run on this thread, once nothing
   * reads them any more (a backtest's result is assembled, analytics' bootstrap is
   * drawn): the record is empty afterwards. The other figures stay.
   */
  release(): void {
    giveBack(this.recordedPnl);
    giveBack(this.recordedStake);
    this.recordedPnl = NO_RECORD;
    this.recordedStake = NO_RECORD;
    this.recorded = 0;
  }

  /** Records a round that was not bet: PnL 0. */
  noBet(): void {
    this.push(0, 0);
  }

  /**
   * A settled bet-round (per-square figures and the win already counted by the runner):
   * the account (addBet), recovery, cap figures, then the stops in order of precedence.
   */
  bet(i: number, m: number, stakeSum: number, pnl: number, capHit: boolean): void {
    const ended = this.addBet(m, stakeSum, pnl);
    if (pnl < 0) {
      if (capHit) this.capLoss -= pnl;
    } else if (ended > 0) {
      this.totalRecovery += pnl;
      this.endedStreaks.push(ended);
    }
    if (capHit) this.capHits++;
    if (this.record) this.push(pnl, stakeSum);
    if (this.stopStreak > 0 && this.streak >= this.stopStreak) this.stop('stop_loss_streak', i);
    else if (this.takeProfit > 0 && this.net >= this.takeProfit) this.stop('take_profit', i);
    else if (this.stopLoss > 0 && this.net <= -this.stopLoss) this.stop('session_stop_loss', i);
  }

  /** Ends the run: `reason`, triggered by the round at history index i. */
  stop(reason: ExitReason, i: number): void {
    this.exit = reason;
    this.exitIndex = i;
  }

  private push(pnl: number, stake: number): void {
    const n = this.recorded;
    if (n === this.recordedPnl.length) this.recordedPnl = grow(this.recordedPnl, n + 1);
    if (this.recordStakes && n === this.recordedStake.length) this.recordedStake = grow(this.recordedStake, n + 1);
    this.recordedPnl[n] = pnl;
    if (this.recordStakes) this.recordedStake[n] = stake;
    this.recorded = n + 1;
  }

  /**
   * Same squares and stakes, winner uniform over the 25 squares: adds the exact mean and
   * variance of this round's PnL (SPEC 7.9 randomOutcomes).
   */
  addChanceMoments(i: number, squares: Int8Array, stakes: Float64Array, m: number, stakeSum: number): void {
    const h = this.history;
    const cost = stakeSum + this.fee;
    const base = i * SQUARES;
    const sum = h.sumDeployed[i]!;
    let total: number;
    if (h.rule[i] === RETURNS) {
      // Every square returns its losing share; the winner, if bet, its winning share and ORE.
      let lost = 0;
      for (let j = 0; j < m; j++) lost += returnedLamports(stakes[j]!, h.deployed[base + squares[j]!]!, false);
      total = (lost - cost) * (SQUARES - m);
      for (let j = 0; j < m; j++) {
        const sj = stakes[j]!;
        const dj = h.deployed[base + squares[j]!]!;
        const ore = oreEarned(sj, dj, h.oreReward[i]!, h.motherlode[i]!, h.split[i]!, h.drawHi[i]!, h.drawLo[i]!);
        const back = lost - returnedLamports(sj, dj, false) + returnedLamports(sj, dj, true) + oreValueLamports(ore, h.productionCost[i]!);
        const pnl = back - cost;
        this.chancePnl[j] = pnl;
        total += pnl;
      }
      const mean = total / SQUARES;
      let deviations = (SQUARES - m) * (lost - cost - mean) ** 2;
      for (let j = 0; j < m; j++) deviations += (this.chancePnl[j]! - mean) ** 2;
      this.chanceMean += mean;
      this.chanceVariance += deviations / SQUARES;
      return;
    }
    total = -cost * (SQUARES - m);
    for (let j = 0; j < m; j++) {
      const sj = stakes[j]!;
      const dj = h.deployed[base + squares[j]!]!;
      const pnl = payoutLamports(sj, dj, sum - dj + stakeSum - sj) - cost;
      this.chancePnl[j] = pnl;
      total += pnl;
    }
    const mean = total / SQUARES;
    let deviations = (SQUARES - m) * (-cost - mean) ** 2;
    for (let j = 0; j < m; j++) deviations += (this.chancePnl[j]! - mean) ** 2;
    this.chanceMean += mean;
    this.chanceVariance += deviations / SQUARES;
  }
}
