import { lamportsToSol } from './stats';

/** GET /api/v1/grid/{n} (SPEC 4). */
export interface GridResponse {
  readonly square: number;
  readonly row: number;
  readonly column: number;
  readonly hits: number;
  /** Non-voided rounds: the sample the rates are computed over. */
  readonly rounds: number;
  readonly hitRate: number;
  readonly expectedRate: 0.04;
  readonly currentDrought: number;
  readonly maxDrought: number;
  /** Mean length of the square's droughts (the runs of rounds between its wins, the current one included). */
  readonly avgDrought: number;
  readonly lastHitRoundId: number | null;
  readonly deployedSol: number;
  /** 1 where the square won, 0 elsewhere, oldest to newest, over the latest non-voided rounds. */
  readonly series: number[];
  readonly seriesFromRoundId: number | null;
  readonly seriesToRoundId: number | null;
}

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
): GridResponse {
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
