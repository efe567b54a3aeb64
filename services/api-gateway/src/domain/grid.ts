import type { Grid } from '@gridlab/contracts';
import { lamportsToSol } from './stats';

export interface SquareAggregate {
  readonly hits: number;
  readonly deployed: bigint;
  readonly lastHitId: number | null;
  readonly currentDrought: number;
  readonly maxDrought: number;
}

/**
 * Per-square statistics from the stored aggregates plus the recent outcome series.
 * Square index = 5 * row + column, row 0 at the top.
 */
export function computeGrid(
  square: number,
  aggregate: SquareAggregate,
  settledRounds: number,
  recent: readonly { id: number; winningSquare: number }[],
): Grid {
  return {
    square,
    row: Math.floor(square / 5),
    column: square % 5,
    hits: aggregate.hits,
    rounds: settledRounds,
    hitRate: settledRounds > 0 ? aggregate.hits / settledRounds : 0,
    expectedRate: 0.04,
    currentDrought: aggregate.currentDrought,
    maxDrought: aggregate.maxDrought,
    avgDrought: (settledRounds - aggregate.hits) / (aggregate.hits + 1),
    lastHitRoundId: aggregate.lastHitId,
    deployedSol: lamportsToSol(aggregate.deployed),
    series: recent.map((r) => (r.winningSquare === square ? 1 : 0)),
    seriesFromRoundId: recent[0]?.id ?? null,
    seriesToRoundId: recent[recent.length - 1]?.id ?? null,
  };
}
