import { layout, popcount, type MinerRows } from '@gridlab/chain';
import type { MinerRound, PayoutRule } from '@gridlab/contracts';

// A miner-round as stored (ids for addresses, a mask for squares, flags for the booleans)
// and its wire form, MinerRound. Nulls stay nulls: the chain did not prove the figure.

export const FLAG_TOP_MINER = 1;
export const FLAG_SPLIT = 2;
export const FLAG_HELD_WINNER = 4;
/** The outcome (SOL back, ORE, top miner, the winning square) is known. */
export const FLAG_KNOWN = 8;
const FLAG_PARIMUTUEL = 16;

const STRATEGY_MANUAL = -1;
/** Automated, the strategy not logged (DeployEvents before 2025-12-08 did not say). */
const STRATEGY_AUTOMATED = -2;

const { SQUARES } = layout;
/** The stored slots-left columns are int2. */
const MAX_SLOTS = 32767;

export interface StoredRow {
  readonly roundId: number;
  readonly minerId: number;
  readonly signerId: number;
  /** Bit s: square s; null: not shown. */
  readonly squares: number | null;
  /** Lamports per square when the same on every square; null: see `amounts`, or not known. */
  readonly amount: number | null;
  /** Per set bit of `squares`, in square order, when the amounts differ. */
  readonly amounts: readonly number[] | null;
  readonly solBack: number | null;
  /** The top-miner reward or the split share (`flags` say which). */
  readonly ore: number | null;
  readonly oreMotherlode: number | null;
  readonly adminFee: number | null;
  readonly protocolFee: number | null;
  readonly oreValue: number | null;
  readonly networkFee: number | null;
  readonly priorityFee: number | null;
  readonly executorFee: number | null;
  readonly checkpointDeposit: number | null;
  readonly slotsLeft: number;
  readonly slotsLeftLast: number;
  readonly deploys: number;
  readonly strategy: number;
  readonly flags: number;
}

/** The lamports a row staked (null: not known). */
export function stakeOf(row: Pick<StoredRow, 'squares' | 'amount' | 'amounts'>): number | null {
  if (row.squares === null) return null;
  if (row.amount !== null) return row.amount * popcount(row.squares);
  if (row.amounts === null) return null;
  let sum = 0;
  for (const a of row.amounts) sum += a;
  return sum;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A row to fill with `toStored`. */
export function emptyStoredRow(): Mutable<StoredRow> {
  return {
    roundId: 0, minerId: 0, signerId: 0, squares: null, amount: null, amounts: null, solBack: null, ore: null, oreMotherlode: null, adminFee: null, protocolFee: null,
    oreValue: null, networkFee: null, priorityFee: null, executorFee: null, checkpointDeposit: null, slotsLeft: 0, slotsLeftLast: 0, deploys: 0, strategy: 0, flags: 0,
  };
}

/**
 * The stored form of row `i` of a round's rows, its addresses already given ids, written
 * into `into` (a history fill encodes hundreds of thousands of rows and keeps none: one
 * object refilled instead of one made a row).
 */
export function toStored(rows: MinerRows, i: number, minerId: number, signerId: number, oreValue: number | null, into: Mutable<StoredRow> = emptyStoredRow()): StoredRow {
  const squares = rows.squareMask(i);
  const amount = squares === null ? null : rows.uniformAmount(i);
  const oreSplit = rows.figure(i, 'oreSplit');
  const known = rows.figure(i, 'solBack') !== null;
  const strategy = rows.figure(i, 'automationStrategy');
  into.roundId = rows.roundId;
  into.minerId = minerId;
  into.signerId = signerId;
  into.squares = squares;
  into.amount = amount;
  into.amounts = squares === null || amount !== null ? null : rows.amountsOf(i);
  into.solBack = rows.figure(i, 'solBack');
  into.ore = oreSplit !== null && oreSplit > 0 ? oreSplit : rows.figure(i, 'oreTopMiner');
  into.oreMotherlode = rows.figure(i, 'oreMotherlode');
  into.adminFee = rows.figure(i, 'adminFee');
  into.protocolFee = rows.figure(i, 'protocolFee');
  into.oreValue = oreValue;
  into.networkFee = rows.figure(i, 'networkFee');
  into.priorityFee = rows.figure(i, 'priorityFee');
  into.executorFee = rows.figure(i, 'executorFee');
  into.checkpointDeposit = rows.figure(i, 'checkpointDeposit');
  into.slotsLeft = clampSlots(rows.slotsLeft(i));
  into.slotsLeftLast = clampSlots(rows.slotsLeftLast(i));
  into.deploys = rows.deploys(i);
  into.strategy = !rows.automated(i) ? STRATEGY_MANUAL : (strategy ?? STRATEGY_AUTOMATED);
  into.flags =
    (rows.topMiner(i) === true ? FLAG_TOP_MINER : 0) |
    ((oreSplit ?? 0) > 0 ? FLAG_SPLIT : 0) |
    (rows.heldWinningSquare(i) === true ? FLAG_HELD_WINNER : 0) |
    (known ? FLAG_KNOWN : 0) |
    (rows.payoutRule === 'parimutuel' ? FLAG_PARIMUTUEL : 0);
  return into;
}

function clampSlots(slots: number): number {
  return Math.max(-MAX_SLOTS, Math.min(MAX_SLOTS, slots));
}

/** The wire form of a stored row. */
export function toWire(row: StoredRow, address: string, signer: string, settledAt: string): MinerRound {
  const known = (row.flags & FLAG_KNOWN) !== 0;
  const squares: number[] | null = row.squares === null ? null : [];
  if (squares !== null) for (let s = 0; s < SQUARES; s++) if ((row.squares! & (1 << s)) !== 0) squares.push(s);
  const amounts = squares === null ? null : row.amount !== null ? squares.map(() => row.amount!) : row.amounts === null ? null : [...row.amounts];
  const deployed = stakeOf(row);
  const split = (row.flags & FLAG_SPLIT) !== 0;
  const rule: PayoutRule = (row.flags & FLAG_PARIMUTUEL) !== 0 ? 'parimutuel' : 'returns';
  const net =
    deployed === null || row.solBack === null || row.networkFee === null || row.priorityFee === null || row.executorFee === null
      ? null
      : row.solBack - deployed - row.networkFee - row.priorityFee - row.executorFee;
  return {
    roundId: row.roundId,
    address,
    settledAt,
    payoutRule: rule,
    squares: amounts === null ? null : squares,
    amounts,
    deployed,
    deploys: row.deploys,
    signer,
    automated: row.strategy !== STRATEGY_MANUAL,
    automationStrategy: row.strategy >= 0 ? row.strategy : null,
    slotsLeft: row.slotsLeft,
    slotsLeftLast: row.slotsLeftLast,
    solBack: row.solBack,
    oreTopMiner: !known ? null : split ? 0 : row.ore,
    oreSplit: !known ? null : split ? row.ore : 0,
    oreMotherlode: known ? row.oreMotherlode : null,
    topMiner: known ? (row.flags & FLAG_TOP_MINER) !== 0 : null,
    heldWinningSquare: known ? (row.flags & FLAG_HELD_WINNER) !== 0 : null,
    adminFee: row.adminFee,
    protocolFee: row.protocolFee,
    networkFee: row.networkFee,
    priorityFee: row.priorityFee,
    executorFee: row.executorFee,
    checkpointDeposit: row.checkpointDeposit,
    net,
  };
}
