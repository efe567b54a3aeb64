import { LAMPORTS_PER_SOL, ORE_BASE_UNITS, type RuleStats, type Stats } from '@gridlab/contracts';
import type { RuleSums, StoredAggregates } from '@gridlab/rounds-store';
import { chiSquaredPValue, uniformityStatistic } from '@gridlab/strategy';

const LAMPORTS = BigInt(LAMPORTS_PER_SOL);
const SQUARES = 25;

/** The stored whole-history aggregates the statistics are computed from (no round scan). */
export type HistoryAggregates = Pick<
  StoredAggregates,
  'roundsIndexed' | 'voidedRounds' | 'firstId' | 'lastId' | 'totalDeployed' | 'totalWinnings' | 'settledDeployed' | 'winnerReturnX100' | 'updatedAt' | 'byRule'
> & { readonly squares: readonly Pick<StoredAggregates['squares'][number], 'hits' | 'deployed' | 'currentDrought' | 'maxDrought'>[] };

const ORE_UNITS = BigInt(ORE_BASE_UNITS);

/** Lamports (exact, possibly above 2^53) as decimal SOL. */
export function lamportsToSol(lamports: bigint): number {
  const whole = lamports / LAMPORTS;
  const fraction = lamports % LAMPORTS;
  return Number(whole) + Number(fraction) / 1e9;
}

/**
 * Whole-history statistics from the aggregates. Hit statistics use non-voided rounds
 * only (the chi-squared sample); deployed SOL counts every indexed round.
 * `effectiveHouseEdge = 1 - sum(SOL paid back) / sum(totalDeployed)` over non-voided
 * rounds, where a `parimutuel` round pays back `0.99 * deployed[w] + totalWinnings` and a
 * `returns` round `totalWinnings` (the SOL it returned on every square); null before any
 * such round. It counts SOL only; `byPayoutRule` gives each rule's figures, with the ORE
 * prize of `returns` rounds valued at their production cost as well.
 */
export function computeStats(a: HistoryAggregates): Stats {
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
    byPayoutRule: { parimutuel: ruleStats(a.byRule.parimutuel), returns: ruleStats(a.byRule.returns) },
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

function ruleStats(r: RuleSums): RuleStats {
  const deployed = Number(r.settledDeployed);
  const returned = Number(r.returnedX100) / 100;
  const oreValue = Number(r.oreValue);
  return {
    rounds: r.rounds,
    deployedSol: lamportsToSol(r.settledDeployed),
    returnedSol: lamportsToSol(r.returnedX100 / 100n),
    effectiveHouseEdge: deployed > 0 ? 1 - returned / deployed : null,
    oreRewarded: Number(r.oreReward / ORE_UNITS) + Number(r.oreReward % ORE_UNITS) / ORE_BASE_UNITS,
    oreValueSol: lamportsToSol(r.oreValue),
    effectiveHouseEdgeWithOre: deployed > 0 ? 1 - (returned + oreValue) / deployed : null,
  };
}
