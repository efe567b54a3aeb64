import {
  MAX_STRATEGY_NAME,
  type ForwardStats,
  type LeaderboardDetail,
  type LeaderboardEntry,
  type Strategy,
  type StrategyListItem,
} from '@gridlab/contracts';
import { InputError } from '@gridlab/errors';
import type { LeaderboardRow, SettledPnl, StatsRow, StrategyRow } from '@gridlab/lab-store';
import { roiPercent } from '@gridlab/strategy';
import { equityCurve, ownerShort, toSol } from './figures';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ID_CHARS = 22;

/** A source of uniform integers in [0, max): a port, so ids are testable. */
export type RandomInt = (max: number) => number;

/** `stg_` + 22 base58 characters drawn uniformly (a fixed length, unlike encoded bytes). */
export function newStrategyId(random: RandomInt): string {
  let id = 'stg_';
  for (let i = 0; i < ID_CHARS; i++) id += BASE58[random(58)];
  return id;
}

/** A name as stored: trimmed, 1..80 characters (SPEC 7.10). */
export function strategyName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0 || name.length > MAX_STRATEGY_NAME) {
    throw new InputError(`name must be 1 to ${MAX_STRATEGY_NAME} characters after trimming`, {
      errors: [{ path: '/name', message: `must be 1 to ${MAX_STRATEGY_NAME} characters after trimming` }],
    });
  }
  return name;
}

/**
 * The first round of a session starting now: the round after both the last one the
 * writer settled and the newest one stored (a round already settled is never bet on
 * after the fact; one the writer has not reached yet starts with the writer).
 */
export function sessionStartRound(settledThrough: number | null, latestStored: number | null): number {
  return Math.max(settledThrough ?? 0, latestStored ?? 0) + 1;
}

/** The seed's Strategy. */
export function toWireStrategy(row: StrategyRow): Strategy {
  return {
    id: row.id,
    owner: row.owner,
    name: row.name,
    dsl: row.dsl,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    active: row.active,
    stoppedReason: row.stoppedReason,
    stoppedAtRoundId: row.stoppedAtRoundId,
  };
}

export function toListItem(row: StrategyRow, stats: StatsRow): StrategyListItem {
  return {
    id: row.id,
    name: row.name,
    dsl: row.dsl,
    active: row.active,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    stoppedReason: row.stoppedReason,
    stoppedAtRoundId: row.stoppedAtRoundId,
    stats: {
      roundsSettled: stats.roundsSettled,
      roundsWon: stats.roundsWon,
      netProfitSol: toSol(stats.netLamports),
      roiPercent: roiPercent(stats.netLamports, stats.stakeLamports),
    },
  };
}

/** The seed's Forward-test stats from the committed figures and settled series. */
export function toForwardStats(row: StrategyRow, stats: StatsRow, pending: number, series: readonly SettledPnl[]): ForwardStats {
  return {
    strategyId: row.id,
    active: row.active,
    roundsObserved: stats.roundsObserved,
    roundsSettled: stats.roundsSettled,
    roundsBet: stats.roundsBet,
    roundsWon: stats.roundsWon,
    squaresBet: stats.squaresBet,
    squaresWon: stats.roundsWon,
    netProfitLamports: stats.netLamports,
    netProfitSol: toSol(stats.netLamports),
    oreEarned: stats.oreEarned,
    solReturnedNetLamports: stats.netLamports - stats.oreValueLamports,
    totalStakeLamports: stats.stakeLamports,
    totalStakeSol: toSol(stats.stakeLamports),
    roiPercent: roiPercent(stats.netLamports, stats.stakeLamports),
    winRate: stats.roundsBet > 0 ? stats.roundsWon / stats.roundsBet : 0,
    perSquareWinRate: stats.squaresBet > 0 ? stats.roundsWon / stats.squaresBet : 0,
    maxDrawdownSol: toSol(stats.maxDrawdownLamports),
    minWalletSol: toSol(stats.minNetLamports),
    maxStreak: stats.maxStreak,
    equityCurve: equityCurve(series),
    pendingCount: pending,
    lateCount: stats.lateCount,
    sessionStartRoundId: row.sessionStartRoundId,
    lastSettledRoundId: stats.lastRoundId,
    stoppedReason: row.stoppedReason,
    stoppedAtRoundId: row.stoppedAtRoundId,
  };
}

export function toLeaderboardEntry(row: LeaderboardRow): LeaderboardEntry {
  return { rank: row.rank, id: row.id, name: row.name, ownerShort: ownerShort(row.owner), roiPercent: row.roiPercent, roundsSettled: row.roundsSettled };
}

export function toLeaderboardDetail(row: LeaderboardRow, series: readonly SettledPnl[]): LeaderboardDetail {
  return {
    strategy: { id: row.id, name: row.name, ownerShort: ownerShort(row.owner), dsl: row.dsl, createdAt: row.createdAt.toISOString() },
    forwardTest: {
      rank: row.rank,
      roundsSettled: row.roundsSettled,
      netProfitSol: toSol(row.netLamports),
      roiPercent: row.roiPercent,
      equityCurve: equityCurve(series),
    },
  };
}
