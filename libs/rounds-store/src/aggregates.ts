import type { Round } from '@gridlab/contracts';
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

const ORE_BASE_UNITS = 100_000_000_000n;

/** Sums over `rounds` (any order); the deltas applied to the stored aggregates. */
export function sumRounds(rounds: readonly Round[]): RoundSums {
  return sumBatch(RoundBatch.of(rounds), null);
}

/** Sums over the batch's rows `rows` (indices, any order), or over all of them when null. */
export function sumBatch(batch: RoundBatch, rows: readonly number[] | null): RoundSums {
  const hits = new Array<number>(SQUARES).fill(0);
  const bySquare = new Array<number>(SQUARES).fill(0);
  // Per-square sums stay exact as doubles for up to ~9e6 rounds of 1e9-lamport stakes
  // per batch; batches are far smaller. Totals use BigInt at the end of each round.
  let totalDeployed = 0n;
  let totalWinnings = 0n;
  let settledDeployed = 0n;
  let winnerReturn = 0n;
  let voided = 0;
  const byRule = [emptyRuleSums(), emptyRuleSums()] as [MutableRuleSums, MutableRuleSums];
  let firstId = Number.POSITIVE_INFINITY;
  let lastId = Number.NEGATIVE_INFINITY;
  const count = rows === null ? batch.length : rows.length;
  const { ids, winners, deployed: squares } = batch;
  for (let k = 0; k < count; k++) {
    const i = rows === null ? k : rows[k]!;
    const id = ids[i]!;
    if (id < firstId) firstId = id;
    if (id > lastId) lastId = id;
    const deployed = BigInt(batch.totalDeployed[i]!);
    const winnings = BigInt(batch.totalWinnings[i]!);
    totalDeployed += deployed;
    totalWinnings += winnings;
    for (let s = 0; s < SQUARES; s++) bySquare[s]! += squares[i * SQUARES + s]!;
    const w = winners[i]!;
    if (w < 0) {
      voided++;
      continue;
    }
    hits[w]!++;
    const returns = batch.rules[i] === PAYOUT_RULE_CODES.returns;
    // 100 x the SOL the round paid back to miners: under `parimutuel` the winners' stake
    // less the 1% admin fee plus what they shared (`99 * deployed[w] + 100 * totalWinnings`);
    // under `returns` every square's SOL back, which the program records as `totalWinnings`.
    const returned = returns ? 100n * winnings : 99n * BigInt(squares[i * SQUARES + w]!) + 100n * winnings;
    settledDeployed += deployed;
    winnerReturn += returned;
    const rule = byRule[returns ? 1 : 0];
    rule.rounds++;
    rule.settledDeployed += deployed;
    rule.returnedX100 += returned;
    const oreReward = batch.oreReward[i]!;
    if (oreReward >= 0) {
      const ore = BigInt(oreReward) + BigInt(batch.motherlode[i]!);
      rule.oreReward += ore;
      const cost = batch.productionCost[i]!;
      if (cost >= 0) rule.oreValue += (ore * BigInt(cost)) / ORE_BASE_UNITS;
    }
  }
  return {
    rounds: count,
    voided,
    firstId,
    lastId,
    totalDeployed,
    totalWinnings,
    settledDeployed,
    winnerReturnX100: winnerReturn,
    hits,
    deployedBySquare: bySquare.map((v) => BigInt(v)),
    byRule,
  };
}

type MutableRuleSums = { -readonly [K in keyof RuleSums]: RuleSums[K] };

function emptyRuleSums(): MutableRuleSums {
  return { rounds: 0, settledDeployed: 0n, returnedX100: 0n, oreReward: 0n, oreValue: 0n };
}

/**
 * Advances the drought state of every square over `rounds`, which must all come after
 * the rounds the state describes and be sorted by id. Voided rounds change nothing.
 */
export function advanceDroughts(state: readonly DroughtState[], rounds: readonly Pick<Round, 'id' | 'winningSquare'>[]): DroughtState[] {
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
