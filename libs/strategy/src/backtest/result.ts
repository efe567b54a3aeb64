import type { BacktestResult, BacktestSummary } from '@gridlab/contracts';
import type { RunStats } from '../engine/run-stats';
import { SQUARES } from '../history/history';

const LAMPORTS_PER_SOL = 1e9;
/** SPEC 7.8: the equity curve is cut down to at most this many points. */
export const MAX_EQUITY_POINTS = 2000;

// The result types are the wire contract's (@gridlab/contracts): one definition, which the
// engine builds and lab-backtest sends as it is.
export type { BacktestSummary, BacktestResult } from '@gridlab/contracts';
export type EquityPoint = BacktestResult['equityCurve'][number];
export type PerSquareResult = BacktestSummary['perSquare'][number];

/** A plain array copy (what JSON needs), several times faster than Array.from on a typed array. */
function toNumbers(values: Float64Array, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = values[i]!;
  return out;
}

export function lamportsToSol(lamports: number): number {
  return lamports / LAMPORTS_PER_SOL;
}

/**
 * Indexes of at most `max` points of a series that keep the first, the last, and per
 * equal-width bucket of the rest its minimum and maximum (so the global minimum and
 * maximum, and every drawdown's shape, survive), ascending.
 */
export function downsampleIndexes(values: ArrayLike<number>, max = MAX_EQUITY_POINTS): number[] {
  const n = values.length;
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  if (max < 4) throw new RangeError('downsampling keeps at least 4 points');
  const kept: number[] = [0];
  const interior = n - 2;
  const buckets = Math.floor((max - 2) / 2);
  for (let b = 0; b < buckets; b++) {
    const start = 1 + Math.floor((b * interior) / buckets);
    const end = 1 + Math.floor(((b + 1) * interior) / buckets);
    if (start >= end) continue;
    let lo = start;
    let hi = start;
    for (let i = start + 1; i < end; i++) {
      if (values[i]! < values[lo]!) lo = i;
      if (values[i]! > values[hi]!) hi = i;
    }
    if (lo === hi) kept.push(lo);
    else kept.push(Math.min(lo, hi), Math.max(lo, hi));
  }
  kept.push(n - 1);
  return kept;
}

/**
 * The running balance after each recorded round, downsampled (SPEC 7.8 equityCurve). The
 * k-th recorded round is the k-th non-voided round from `startIndex` (every one of them
 * is recorded, bet or not), so round ids come from the history, not from the record.
 */
function equityCurve(stats: RunStats, startIndex: number): EquityPoint[] {
  const n = stats.recorded;
  const balance = new Float64Array(n);
  let running = 0;
  for (let i = 0; i < n; i++) {
    running += stats.recordedPnl[i]!;
    balance[i] = running;
  }
  const kept = downsampleIndexes(balance);
  const { winning, ids } = stats.history;
  const points: EquityPoint[] = [];
  for (let i = startIndex, k = 0; points.length < kept.length; i++) {
    if (winning[i]! < 0) continue;
    if (k === kept[points.length]) points.push({ round: ids[i]!, balanceLamports: balance[k]! });
    k++;
  }
  return points;
}

/** Round ids to report when a window held no non-voided round. */
export interface WindowBounds {
  readonly firstId: number;
  readonly lastId: number;
}

/** The rounds a run took in bet mode: history indexes [startIndex, endIndex). */
export interface RunBounds extends WindowBounds {
  readonly startIndex: number;
  readonly endIndex: number;
}

/** First and last non-voided round ids in the bounds, and how many there are. */
function settledRange(stats: RunStats, bounds: RunBounds): { count: number; first: number | null; last: number | null } {
  const h = stats.history;
  const ordinal = (k: number): number => (k < h.length ? h.ordinals[k]! : h.settledCount);
  const count = ordinal(bounds.endIndex) - ordinal(bounds.startIndex);
  if (count === 0) return { count, first: null, last: null };
  let a = bounds.startIndex;
  while (h.winning[a]! < 0) a++;
  let b = bounds.endIndex - 1;
  while (h.winning[b]! < 0) b--;
  return { count, first: h.ids[a]!, last: h.ids[b]! };
}

/** The figures an analytics sweep point reports, computed as the summary computes them. */
export type HeadlineFigures = Pick<BacktestSummary, 'roundsBet' | 'netProfitSol' | 'roiPercent' | 'winRate' | 'maxDrawdownSol'>;

/** A run's headline figures without the rest of its summary (no per-square or streak arrays). */
export function headlineFigures(stats: RunStats): HeadlineFigures {
  return {
    roundsBet: stats.roundsBet,
    netProfitSol: lamportsToSol(stats.net),
    roiPercent: stats.roiPercent,
    winRate: stats.roundsBet > 0 ? stats.roundsWon / stats.roundsBet : 0,
    maxDrawdownSol: lamportsToSol(stats.maxDrawdown),
  };
}

export function summarize(stats: RunStats, bounds: RunBounds): BacktestSummary {
  const head = headlineFigures(stats);
  const range = settledRange(stats, bounds);
  const rangeMin = range.first ?? bounds.firstId;
  const rangeMax = range.last ?? bounds.lastId;
  const perSquare = Array.from({ length: SQUARES }, (_, s) => ({
    square: s,
    betCount: stats.betCount[s]!,
    winCount: stats.winCount[s]!,
    netLamports: stats.squareNet(s),
  }));
  return {
    totalRounds: range.count,
    roundsBet: head.roundsBet,
    roundsWon: stats.roundsWon,
    squaresBet: stats.squaresBet,
    squaresWonOn: stats.roundsWon,
    netProfitLamports: stats.net,
    netProfitSol: head.netProfitSol,
    oreEarned: stats.oreEarned,
    solReturnedNetLamports: stats.solReturnedNet,
    totalStakeLamports: stats.totalStake,
    totalStakeSol: lamportsToSol(stats.totalStake),
    totalRecoveryLamports: stats.totalRecovery,
    totalRecoverySol: lamportsToSol(stats.totalRecovery),
    roiPercent: head.roiPercent,
    winRate: head.winRate,
    perSquareWinRate: stats.squaresBet > 0 ? stats.roundsWon / stats.squaresBet : 0,
    maxStreak: stats.maxStreak,
    capHits: stats.capHits,
    totalCapLossSol: lamportsToSol(stats.capLoss),
    minWalletSol: lamportsToSol(stats.minNet),
    maxDrawdownSol: head.maxDrawdownSol,
    rangeMin,
    rangeMax,
    exitedEarly: stats.exit,
    exitRoundId: stats.exitRoundId ?? rangeMax,
    perSquare,
    streakRunLengths: stats.streakRunLengths(),
  };
}

export function fullResult(stats: RunStats, bounds: RunBounds): BacktestResult {
  if (!stats.record) throw new Error('a full result needs a recording runner');
  return {
    ...summarize(stats, bounds),
    equityCurve: equityCurve(stats, bounds.startIndex),
    perRoundPnlLamports: toNumbers(stats.recordedPnl, stats.recorded),
  };
}
