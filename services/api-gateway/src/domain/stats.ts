import type { StoredAggregates } from '@gridlab/rounds-store';
import { chiSquaredPValue, uniformityStatistic } from './chi-squared';

const LAMPORTS_PER_SOL = 1_000_000_000n;
const SQUARES = 25;

/** The stored whole-history aggregates the statistics are computed from (no round scan). */
export type HistoryAggregates = Pick<
  StoredAggregates,
  'roundsIndexed' | 'voidedRounds' | 'firstId' | 'lastId' | 'totalDeployed' | 'totalWinnings' | 'settledDeployed' | 'winnerReturnX100' | 'updatedAt'
> & { readonly squares: readonly Pick<StoredAggregates['squares'][number], 'hits' | 'deployed' | 'currentDrought' | 'maxDrought'>[] };

/** GET /api/v1/stats (SPEC 4). */
export interface StatsResponse {
  readonly roundsIndexed: number;
  readonly firstRoundId: number | null;
  readonly lastRoundId: number | null;
  readonly totalDeployedSol: number;
  readonly totalWinningsSol: number;
  readonly effectiveHouseEdge: number | null;
  readonly chiSquared: { statistic: number; degreesOfFreedom: 24; pValue: number; sampleSize: number };
  readonly perGrid: readonly {
    square: number;
    hits: number;
    hitRate: number;
    expectedHits: number;
    deployedSol: number;
    currentDrought: number;
    maxDrought: number;
  }[];
  readonly updatedAt: string;
}

/** Lamports (exact, possibly above 2^53) as decimal SOL. */
export function lamportsToSol(lamports: bigint): number {
  const whole = lamports / LAMPORTS_PER_SOL;
  const fraction = lamports % LAMPORTS_PER_SOL;
  return Number(whole) + Number(fraction) / 1e9;
}

/**
 * Whole-history statistics from the aggregates. Hit statistics use non-voided rounds
 * only (the chi-squared sample); deployed SOL counts every indexed round.
 * `effectiveHouseEdge = 1 - sum(0.99 * deployed[w] + totalWinnings) / sum(totalDeployed)`
 * over non-voided rounds; null before any such round.
 */
export function computeStats(a: HistoryAggregates): StatsResponse {
  const hits = a.squares.map((s) => s.hits);
  const { statistic, sampleSize } = uniformityStatistic(hits);
  const expectedHits = sampleSize / SQUARES;
  const edge =
    a.settledDeployed > 0n ? 1 - Number(a.winnerReturnX100) / 100 / Number(a.settledDeployed) : null;
  return {
    roundsIndexed: a.roundsIndexed,
    firstRoundId: a.firstId,
    lastRoundId: a.lastId,
    totalDeployedSol: lamportsToSol(a.totalDeployed),
    totalWinningsSol: lamportsToSol(a.totalWinnings),
    effectiveHouseEdge: edge,
    chiSquared: { statistic, degreesOfFreedom: 24, pValue: chiSquaredPValue(statistic, 24), sampleSize },
    perGrid: a.squares.map((s, square) => ({
      square,
      hits: s.hits,
      hitRate: sampleSize > 0 ? s.hits / sampleSize : 0,
      expectedHits,
      deployedSol: lamportsToSol(s.deployed),
      currentDrought: s.currentDrought,
      maxDrought: s.maxDrought,
    })),
    updatedAt: a.updatedAt.toISOString(),
  };
}
