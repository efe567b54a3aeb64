import type { Round } from '@gridlab/contracts';

export const SQUARES = 25;

/** Drought state of one square: non-voided rounds since it last won, and the longest such run. */
export interface DroughtState {
  readonly lastHitId: number | null;
  readonly currentDrought: number;
  readonly maxDrought: number;
}

/** Additive sums of a set of rounds (exact: lamport sums can pass 2^53). */
export interface RoundSums {
  readonly rounds: number;
  readonly voided: number;
  readonly firstId: number;
  readonly lastId: number;
  readonly totalDeployed: bigint;
  readonly totalWinnings: bigint;
  /** Non-voided rounds only. */
  readonly settledDeployed: bigint;
  /** Non-voided rounds: sum of 99 * deployed[winner] + 100 * totalWinnings. */
  readonly winnerReturnX100: bigint;
  readonly hits: readonly number[];
  readonly deployedBySquare: readonly bigint[];
}

/** Sums over `rounds` (any order); the deltas applied to the stored aggregates. */
export function sumRounds(rounds: readonly Round[]): RoundSums {
  const hits = new Array<number>(SQUARES).fill(0);
  const bySquare = new Array<number>(SQUARES).fill(0);
  // Per-square sums stay exact as doubles for up to ~9e6 rounds of 1e9-lamport stakes
  // per batch; batches are far smaller. Totals use BigInt at the end of each round.
  let totalDeployed = 0n;
  let totalWinnings = 0n;
  let settledDeployed = 0n;
  let winnerReturn = 0n;
  let voided = 0;
  let firstId = Number.POSITIVE_INFINITY;
  let lastId = Number.NEGATIVE_INFINITY;
  for (const r of rounds) {
    if (r.id < firstId) firstId = r.id;
    if (r.id > lastId) lastId = r.id;
    totalDeployed += BigInt(r.totalDeployed);
    totalWinnings += BigInt(r.totalWinnings);
    for (let s = 0; s < SQUARES; s++) bySquare[s]! += r.deployed[s]!;
    if (r.winningSquare === null) {
      voided++;
      continue;
    }
    hits[r.winningSquare]!++;
    settledDeployed += BigInt(r.totalDeployed);
    winnerReturn += 99n * BigInt(r.deployed[r.winningSquare]!) + 100n * BigInt(r.totalWinnings);
  }
  return {
    rounds: rounds.length,
    voided,
    firstId,
    lastId,
    totalDeployed,
    totalWinnings,
    settledDeployed,
    winnerReturnX100: winnerReturn,
    hits,
    deployedBySquare: bySquare.map((v) => BigInt(v)),
  };
}

/**
 * Advances the drought state of every square over `rounds`, which must all come after
 * the rounds the state describes and be sorted by id. Voided rounds change nothing.
 */
export function advanceDroughts(state: readonly DroughtState[], rounds: readonly Round[]): DroughtState[] {
  const last = state.map((s) => s.lastHitId);
  const current = state.map((s) => s.currentDrought);
  const max = state.map((s) => s.maxDrought);
  for (const r of rounds) {
    const w = r.winningSquare;
    if (w === null) continue;
    for (let s = 0; s < SQUARES; s++) {
      if (s === w) {
        current[s] = 0;
        last[s] = r.id;
      } else {
        const d = current[s]! + 1;
        current[s] = d;
        if (d > max[s]!) max[s] = d;
      }
    }
  }
  return state.map((_, s) => ({ lastHitId: last[s]!, currentDrought: current[s]!, maxDrought: max[s]! }));
}

/** Drought state of an empty history. */
export function emptyDroughts(): DroughtState[] {
  return Array.from({ length: SQUARES }, () => ({ lastHitId: null, currentDrought: 0, maxDrought: 0 }));
}
