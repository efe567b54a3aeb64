import { ORE_BASE_UNITS, type Round } from '@gridlab/contracts';
import { RoundBatch } from './round-batch';
import { PAYOUT_RULE_CODES } from './rounds-table';
import * as table from './rounds-table';

// Bound to module constants: an imported binding is read through a getter on every use
// once compiled to CommonJS, which the per-row loops below pay measurably.
const { SQUARES } = table;

/** Drought state of one square: non-voided rounds since it last won, and the longest such run. */
export interface DroughtState {
  readonly lastHitId: number | null;
  readonly currentDrought: number;
  readonly maxDrought: number;
}

/** Rounds' ids and winning squares (-1: voided) in columns, such as a `RoundBatch`'s. */
export interface RoundOutcomes {
  readonly ids: Float64Array;
  readonly winners: Int8Array;
  readonly length: number;
}

/** Additive sums of a set of rounds (exact: lamport sums can pass 2^53). */
export interface RoundSums {
  readonly rounds: number;
  readonly voided: number;
  /** Partly known rounds (`transactions_partial`). */
  readonly partial: number;
  readonly firstId: number;
  readonly lastId: number;
  readonly totalDeployed: bigint;
  readonly totalWinnings: bigint;
  /** Non-voided rounds only. */
  readonly settledDeployed: bigint;
  /** Non-voided rounds: 100 x the SOL miners got back (see `sumBatch`), all rules. */
  readonly winnerReturnX100: bigint;
  readonly hits: readonly number[];
  readonly deployedBySquare: readonly bigint[];
  /** The same sums split by payout rule (index = `PAYOUT_RULE_CODES` value). */
  readonly byRule: readonly [RuleSums, RuleSums];
}

/** Additive sums of the non-voided rounds settled under one payout rule. */
export interface RuleSums {
  readonly rounds: number;
  readonly settledDeployed: bigint;
  /** 100 x the SOL miners got back (see `sumBatch`). */
  readonly returnedX100: bigint;
  /** ORE base units rewarded: the round's reward plus any motherlode. */
  readonly oreReward: bigint;
  /** That ORE valued at each round's production cost, lamports (floored per round). */
  readonly oreValue: bigint;
}

const ORE_UNITS = BigInt(ORE_BASE_UNITS);

/** Sums over `rounds` (any order); the deltas applied to the stored aggregates. */
export function sumRounds(rounds: readonly Round[]): RoundSums {
  return sumBatch(RoundBatch.of(rounds), null);
}

/**
 * Exact sums of safe integers in doubles: each value is split at 2^26 and the two halves
 * summed apart, each sum exact while it stays below 2^53 (2^26 values, far above a
 * batch). Slot k holds its high half at 2k and its low half at 2k + 1.
 */
const TWO_26 = 2 ** 26;
const TWO_26N = 2n ** 26n;

function add(acc: Float64Array, k: number, v: number): void {
  const hi = Math.floor(v / TWO_26);
  acc[2 * k]! += hi;
  acc[2 * k + 1]! += v - hi * TWO_26;
}

function exact(acc: Float64Array, k: number): bigint {
  return BigInt(acc[2 * k]!) * TWO_26N + BigInt(acc[2 * k + 1]!);
}

// Sum slots: all rows; then per payout rule r (non-voided rows) at RULE + 4r.
const DEPLOYED = 0;
const WINNINGS = 1;
const RULE = 2;
const RULE_DEPLOYED = 0;
const RULE_WINNINGS = 1;
/** The winning square's stake (what `parimutuel` pays back). */
const RULE_WINNER_STAKE = 2;
const RULE_ORE = 3;
const SLOTS = RULE + 8 + SQUARES;
const BY_SQUARE = RULE + 8;

/** Sums over the batch's rows `rows` (indices, any order), or over all of them when null. */
export function sumBatch(batch: RoundBatch, rows: readonly number[] | null): RoundSums {
  const acc = new Float64Array(2 * SLOTS);
  const hits = new Array<number>(SQUARES).fill(0);
  const ruleRounds = [0, 0];
  const oreValue = [0n, 0n];
  let voided = 0;
  let firstId = Number.POSITIVE_INFINITY;
  let lastId = Number.NEGATIVE_INFINITY;
  const count = rows === null ? batch.length : rows.length;
  const { ids, winners, rules, deployed: squares, totalDeployed, totalWinnings, oreReward, motherlode, productionCost, partial: partialRows } = batch;
  let partial = 0;
  for (let k = 0; k < count; k++) {
    const i = rows === null ? k : rows[k]!;
    const id = ids[i]!;
    if (id < firstId) firstId = id;
    if (id > lastId) lastId = id;
    partial += partialRows[i]!;
    add(acc, DEPLOYED, totalDeployed[i]!);
    add(acc, WINNINGS, totalWinnings[i]!);
    // A partly known round's unknown squares (-1) add nothing: the sums are of what is known.
    for (let s = 0; s < SQUARES; s++) {
      const v = squares[i * SQUARES + s]!;
      if (v > 0) add(acc, BY_SQUARE + s, v);
    }
    const w = winners[i]!;
    if (w < 0) {
      voided++;
      continue;
    }
    hits[w]!++;
    const rule = rules[i]!;
    const slot = RULE + 4 * rule;
    ruleRounds[rule]!++;
    const winnerStake = squares[i * SQUARES + w]!;
    // What a round paid back needs its winning square's stake: one where it is not known stays out of the house-edge sums.
    if (winnerStake >= 0) {
      add(acc, slot + RULE_DEPLOYED, totalDeployed[i]!);
      add(acc, slot + RULE_WINNINGS, totalWinnings[i]!);
      add(acc, slot + RULE_WINNER_STAKE, winnerStake);
    }
    const reward = oreReward[i]!;
    if (reward >= 0) {
      // The reward plus any motherlode, added apart: together they can pass 2^53.
      add(acc, slot + RULE_ORE, reward);
      add(acc, slot + RULE_ORE, motherlode[i]!);
      const cost = productionCost[i]!;
      // Floored per round, so each product is exact (it can pass 2^53).
      if (cost >= 0) oreValue[rule]! += (BigInt(reward) + BigInt(motherlode[i]!)) * BigInt(cost) / ORE_UNITS;
    }
  }
  const byRule = [0, 1].map((rule): RuleSums => {
    const slot = RULE + 4 * rule;
    const winnings = exact(acc, slot + RULE_WINNINGS);
    // 100 x the SOL the round paid back to miners: under `parimutuel` the winners' stake
    // less the 1% admin fee plus what they shared (`99 * deployed[w] + 100 * totalWinnings`);
    // under `returns` every square's SOL back, which the program records as `totalWinnings`.
    const returnedX100 = rule === PAYOUT_RULE_CODES.returns ? 100n * winnings : 99n * exact(acc, slot + RULE_WINNER_STAKE) + 100n * winnings;
    return { rounds: ruleRounds[rule]!, settledDeployed: exact(acc, slot + RULE_DEPLOYED), returnedX100, oreReward: exact(acc, slot + RULE_ORE), oreValue: oreValue[rule]! };
  }) as [RuleSums, RuleSums];
  return {
    rounds: count,
    voided,
    partial,
    firstId,
    lastId,
    totalDeployed: exact(acc, DEPLOYED),
    totalWinnings: exact(acc, WINNINGS),
    settledDeployed: byRule[0].settledDeployed + byRule[1].settledDeployed,
    winnerReturnX100: byRule[0].returnedX100 + byRule[1].returnedX100,
    hits,
    deployedBySquare: Array.from({ length: SQUARES }, (_, s) => exact(acc, BY_SQUARE + s)),
    byRule,
  };
}

/**
 * Advances the drought state of every square over `rounds`, which must all come after
 * the rounds the state describes and be sorted by id. Voided rounds change nothing.
 */
export function advanceDroughts(state: readonly DroughtState[], rounds: readonly Pick<Round, 'id' | 'winningSquare'>[]): DroughtState[] {
  const outcomes = { ids: Float64Array.from(rounds, (r) => r.id), winners: Int8Array.from(rounds, (r) => r.winningSquare ?? -1), length: rounds.length };
  return advanceDroughtsOver(state, outcomes, null);
}

/**
 * `advanceDroughts` over a batch's rows `rows` (indices in id order; null: all of them,
 * already in id order), in one pass: a square's drought just before a round is the
 * non-voided rounds since the one after its last win, so only the winning square of each
 * round is touched.
 */
export function advanceDroughtsOver(state: readonly DroughtState[], outcomes: RoundOutcomes, rows: readonly number[] | null): DroughtState[] {
  const { ids, winners } = outcomes;
  const last = state.map((s) => s.lastHitId);
  const max = state.map((s) => s.maxDrought);
  // The non-voided round (counted from this call's first) from which the drought counts.
  const since = state.map((s) => -s.currentDrought);
  let rank = 0;
  const count = rows === null ? outcomes.length : rows.length;
  for (let k = 0; k < count; k++) {
    const i = rows === null ? k : rows[k]!;
    const w = winners[i]!;
    if (w < 0) continue;
    const drought = rank - since[w]!;
    if (drought > max[w]!) max[w] = drought;
    since[w] = rank + 1;
    last[w] = ids[i]!;
    rank++;
  }
  return state.map((_, s) => {
    const current = rank - since[s]!;
    return { lastHitId: last[s]!, currentDrought: current, maxDrought: Math.max(max[s]!, current) };
  });
}

/** Drought state of an empty history. */
export function emptyDroughts(): DroughtState[] {
  return Array.from({ length: SQUARES }, () => ({ lastHitId: null, currentDrought: 0, maxDrought: 0 }));
}
