import type { MinerWindow } from '@gridlab/contracts';
import { FLAG_HELD_WINNER, FLAG_KNOWN, FLAG_SPLIT, FLAG_TOP_MINER, stakeOf, type StoredRow } from './row';

/**
 * Slots-left buckets of the rollups' histogram (lower bounds): exact below 4 slots, where
 * automated wallets deploy, then widening. The median is given as its bucket.
 */
const SLOT_BUCKETS = [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192] as const;

function slotBucket(slots: number): number {
  let b = 0;
  while (b + 1 < SLOT_BUCKETS.length && slots >= SLOT_BUCKETS[b + 1]!) b++;
  return b;
}

/** Buckets of the slots histogram (`slots_hist` has one element each). */
export const SLOT_BUCKET_COUNT = SLOT_BUCKETS.length;

/**
 * `slotBucket` of an integer column in SQL: width_bucket counts the lower bounds above the
 * first at or below the value, 0 below 1 slot (negative slots too), as `slotBucket` does.
 */
export function slotBucketSql(column: string): string {
  return `width_bucket(${column}, ARRAY[${SLOT_BUCKETS.slice(1).join(', ')}])`;
}

/** What a row adds to the slots histogram: its first deploy to one bucket, each later one to its last deploy's. */
export function slotsOf(row: Pick<StoredRow, 'slotsLeft' | 'slotsLeftLast' | 'deploys'>): { first: number; last: number; laterDeploys: number } {
  return { first: slotBucket(row.slotsLeft), last: slotBucket(row.slotsLeftLast), laterDeploys: Math.max(0, row.deploys - 1) };
}

/** One rollup row's figures (a wallet over an hour, a day, all time, or a window). */
export interface Rollup {
  rounds: number;
  deploys: number;
  wins: number;
  topWins: number;
  motherlodeHits: number;
  unknown: number;
  firstRound: number;
  lastRound: number;
  deployed: number;
  solBack: number;
  adminFee: number;
  protocolFee: number;
  networkFee: number;
  priorityFee: number;
  executorFee: number;
  checkpointDeposits: number;
  oreTop: number;
  oreSplit: number;
  oreMotherlode: number;
  oreValue: number;
  slotsHist: number[];
}

/** Column names of a rollup row, in `Rollup`'s order. */
export const ROLLUP_COLUMNS = [
  'rounds', 'deploys', 'wins', 'top_wins', 'motherlode_hits', 'unknown', 'first_round', 'last_round', 'deployed', 'sol_back', 'admin_fee', 'protocol_fee',
  'network_fee', 'priority_fee', 'executor_fee', 'checkpoint_deposits', 'ore_top', 'ore_split', 'ore_motherlode', 'ore_value', 'slots_hist',
] as const;

/** What one stored row adds to its wallet's rollups: a row whose stake or outcome is not known adds to `rounds` and `unknown` only. */
export function rollupOf(row: StoredRow): Rollup {
  return addRow(emptyRollup(), row);
}

/** `into` plus what `row` adds to it (`rollupOf`), in place. */
export function addRow(into: Rollup, row: StoredRow): Rollup {
  const stake = stakeOf(row);
  const known = stake !== null && (row.flags & FLAG_KNOWN) !== 0;
  const slots = slotsOf(row);
  into.slotsHist[slots.first]! += 1;
  into.slotsHist[slots.last]! += slots.laterDeploys;
  into.rounds += 1;
  into.deploys += row.deploys;
  into.firstRound = into.firstRound < 0 ? row.roundId : Math.min(into.firstRound, row.roundId);
  into.lastRound = Math.max(into.lastRound, row.roundId);
  // Fees paid outside the stake are known or not on their own.
  into.networkFee += row.networkFee ?? 0;
  into.priorityFee += row.priorityFee ?? 0;
  into.executorFee += row.executorFee ?? 0;
  into.checkpointDeposits += row.checkpointDeposit ?? 0;
  if (!known) {
    into.unknown += 1;
    return into;
  }
  if ((row.flags & FLAG_HELD_WINNER) !== 0) into.wins += 1;
  if ((row.flags & FLAG_TOP_MINER) !== 0) into.topWins += 1;
  if ((row.oreMotherlode ?? 0) > 0) into.motherlodeHits += 1;
  into.deployed += stake;
  into.solBack += row.solBack ?? 0;
  into.adminFee += row.adminFee ?? 0;
  into.protocolFee += row.protocolFee ?? 0;
  if ((row.flags & FLAG_SPLIT) !== 0) into.oreSplit += row.ore ?? 0;
  else into.oreTop += row.ore ?? 0;
  into.oreMotherlode += row.oreMotherlode ?? 0;
  into.oreValue += row.oreValue ?? 0;
  return into;
}

export function emptyRollup(): Rollup {
  return {
    rounds: 0, deploys: 0, wins: 0, topWins: 0, motherlodeHits: 0, unknown: 0, firstRound: -1, lastRound: -1, deployed: 0, solBack: 0, adminFee: 0,
    protocolFee: 0, networkFee: 0, priorityFee: 0, executorFee: 0, checkpointDeposits: 0, oreTop: 0, oreSplit: 0, oreMotherlode: 0, oreValue: 0,
    slotsHist: new Array<number>(SLOT_BUCKETS.length).fill(0),
  };
}

/** `into` plus `r`, in place. */
export function addRollup(into: Rollup, r: Rollup): Rollup {
  into.rounds += r.rounds;
  into.deploys += r.deploys;
  into.wins += r.wins;
  into.topWins += r.topWins;
  into.motherlodeHits += r.motherlodeHits;
  into.unknown += r.unknown;
  if (r.rounds > 0) {
    into.firstRound = into.firstRound < 0 ? r.firstRound : Math.min(into.firstRound, r.firstRound);
    into.lastRound = Math.max(into.lastRound, r.lastRound);
  }
  into.deployed += r.deployed;
  into.solBack += r.solBack;
  into.adminFee += r.adminFee;
  into.protocolFee += r.protocolFee;
  into.networkFee += r.networkFee;
  into.priorityFee += r.priorityFee;
  into.executorFee += r.executorFee;
  into.checkpointDeposits += r.checkpointDeposits;
  into.oreTop += r.oreTop;
  into.oreSplit += r.oreSplit;
  into.oreMotherlode += r.oreMotherlode;
  into.oreValue += r.oreValue;
  for (let i = 0; i < r.slotsHist.length; i++) into.slotsHist[i]! += r.slotsHist[i]!;
  return into;
}

/** The wire window of a rollup. */
export function toWindow(r: Rollup): MinerWindow {
  const ore = r.oreTop + r.oreSplit + r.oreMotherlode;
  const net = r.solBack - r.deployed - r.networkFee - r.priorityFee - r.executorFee;
  // The refining fee at the same prices as the ORE: a tenth of its value.
  const refiningValue = Math.floor(r.oreValue / 10);
  const known = r.rounds - r.unknown;
  return {
    rounds: r.rounds,
    deploys: r.deploys,
    deployed: r.deployed,
    solBack: r.solBack,
    adminFee: r.adminFee,
    protocolFee: r.protocolFee,
    networkFee: r.networkFee,
    priorityFee: r.priorityFee,
    executorFee: r.executorFee,
    checkpointDeposits: r.checkpointDeposits,
    net,
    oreTopMiner: r.oreTop,
    oreSplit: r.oreSplit,
    oreMotherlode: r.oreMotherlode,
    ore,
    oreRefiningFee: Math.floor(ore / 10),
    oreValue: r.oreValue,
    netWithOre: net + r.oreValue - refiningValue,
    wins: r.wins,
    winRate: known === 0 ? null : r.wins / known,
    topMinerWins: r.topWins,
    motherlodeHits: r.motherlodeHits,
    medianSlotsLeft: medianBucket(r.slotsHist),
    firstRound: r.rounds === 0 ? null : r.firstRound,
    lastRound: r.rounds === 0 ? null : r.lastRound,
    unknownRounds: r.unknown,
  };
}

function medianBucket(hist: readonly number[]): MinerWindow['medianSlotsLeft'] {
  const all = hist.reduce((a, b) => a + b, 0);
  if (all === 0) return null;
  let acc = 0;
  for (let b = 0; b < hist.length; b++) {
    acc += hist[b]!;
    if (acc * 2 >= all) return { min: SLOT_BUCKETS[b]!, max: b + 1 < SLOT_BUCKETS.length ? SLOT_BUCKETS[b + 1]! - 1 : null };
  }
  return null;
}
