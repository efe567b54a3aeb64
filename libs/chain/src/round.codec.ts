import { DecodeError } from '@gridlab/errors';
import bs58 from 'bs58';
import { readSafeU64, viewOf, writeU64 } from './bytes';
import { isVoidedSlotHash } from './rng';
import {
  HEADER_BYTES,
  ROUND_DISCRIMINATOR,
  ROUND_LEN_CURRENT,
  ROUND_LEN_V3,
  ROUND_LEN_V3_LEGACY,
  ROUND_OFFSETS as O,
  ROUND_OFFSETS_CURRENT as C,
  ROUND_TAIL_V3,
  ROUND_TAIL_V3_LEGACY,
  SPLIT_ADDRESS,
  SQUARES,
  U64_MAX,
} from './ore-layout';

export type RoundLayout = typeof ROUND_LEN_V3 | typeof ROUND_LEN_V3_LEGACY | typeof ROUND_LEN_CURRENT;

const SPLIT_BYTES = bs58.decode(SPLIT_ADDRESS);

/** A decoded ORE Round account, any layout. Lamport and ORE fields are integers below 2^53. */
export interface RoundAccount {
  readonly layout: RoundLayout;
  readonly id: number;
  readonly deployed: readonly number[];
  readonly slotHash: Uint8Array;
  readonly count: readonly number[];
  /** Slot after which the account may be closed; null for u64::MAX (never). */
  readonly expiresAt: number | null;
  readonly motherlode: number;
  readonly rentPayer: string;
  readonly topMiner: string;
  /** v3: `top_miner_reward`; 952 bytes: the sum of `rewards` (ORE base units). */
  readonly topMinerReward: number;
  /**
   * v3: `total_deployed`. 952 bytes (no such field): the sum of `deployed`, or for a
   * voided round (whose `deployed` the program zeroes) the refund, `total_winnings`.
   */
  readonly totalDeployed: number;
  /** Absent (null) only in the 560-byte layout. */
  readonly totalMiners: number | null;
  readonly totalVaulted: number;
  /** SOL shared by the winning square (parimutuel) or returned to miners (returns rule). */
  readonly totalWinnings: number;
  /** 952 bytes only (null before): per-square `mass`. */
  readonly mass: readonly number[] | null;
  /** 952 bytes only (null before): per-square ORE `rewards`, base units. */
  readonly rewards: readonly number[] | null;
  /** 952 bytes only (null before): the ORE reward was split pro rata on the winning square. */
  readonly split: boolean | null;
}

/**
 * Checks the 8-byte header: byte 0 the discriminator, bytes 1..7 zero. Shared by the
 * board codec.
 */
export function checkHeader(data: Uint8Array, discriminator: number, what: string): void {
  if (data.length < HEADER_BYTES || data[0] !== discriminator) {
    throw new DecodeError('bad_discriminator', `${what}: expected discriminator ${discriminator}, got ${data[0] ?? 'none'}`);
  }
  for (let i = 1; i < HEADER_BYTES; i++) {
    if (data[i] !== 0) throw new DecodeError('bad_discriminator', `${what}: header byte ${i} is not zero`);
  }
}

/**
 * Decodes a Round account, choosing the layout by length (560, 568 or 952 bytes). Any
 * other length is rejected with a DecodeError naming it: never guessed at.
 */
export function decodeRound(data: Uint8Array): RoundAccount {
  if (data.length !== ROUND_LEN_V3 && data.length !== ROUND_LEN_V3_LEGACY && data.length !== ROUND_LEN_CURRENT) {
    throw new DecodeError('unknown_account_length', `round account has unknown length ${data.length}`);
  }
  checkHeader(data, ROUND_DISCRIMINATOR, 'round');
  return data.length === ROUND_LEN_CURRENT ? decodeCurrent(data) : decodeV3(data);
}

function decodeV3(data: Uint8Array): RoundAccount {
  const view = viewOf(data);
  const legacy = data.length === ROUND_LEN_V3_LEGACY;
  const deployed = readSquares(view, O.deployed, 'deployed');
  const slotHash = data.slice(O.slotHash, O.slotHash + 32);
  const totalDeployedField = readSafeU64(view, O.totalDeployed, 'total_deployed');
  return {
    layout: legacy ? ROUND_LEN_V3_LEGACY : ROUND_LEN_V3,
    id: readSafeU64(view, O.id, 'id'),
    deployed,
    slotHash,
    count: readSquares(view, O.count, 'count'),
    expiresAt: readExpiry(view, O.expiresAt),
    motherlode: readSafeU64(view, O.motherlode, 'motherlode'),
    rentPayer: bs58.encode(data.subarray(O.rentPayer, O.rentPayer + 32)),
    topMiner: bs58.encode(data.subarray(O.topMiner, O.topMiner + 32)),
    topMinerReward: readSafeU64(view, O.topMinerReward, 'top_miner_reward'),
    // A voided reset zeroes `total_deployed` and keeps `deployed` (reset.rs since v3): what was deployed, and refunded.
    totalDeployed: isVoidedSlotHash(slotHash) && totalDeployedField === 0 ? deployed.reduce((a, b) => a + b, 0) : totalDeployedField,
    totalMiners: legacy ? null : readSafeU64(view, ROUND_TAIL_V3.totalMiners, 'total_miners'),
    totalVaulted: readSafeU64(view, legacy ? ROUND_TAIL_V3_LEGACY.totalVaulted : ROUND_TAIL_V3.totalVaulted, 'total_vaulted'),
    totalWinnings: readSafeU64(view, legacy ? ROUND_TAIL_V3_LEGACY.totalWinnings : ROUND_TAIL_V3.totalWinnings, 'total_winnings'),
    mass: null,
    rewards: null,
    split: null,
  };
}

function decodeCurrent(data: Uint8Array): RoundAccount {
  const view = viewOf(data);
  const deployed = readSquares(view, C.deployed, 'deployed');
  const rewards = readSquares(view, C.rewards, 'rewards');
  const totalWinnings = readSafeU64(view, C.totalWinnings, 'total_winnings');
  const deployedSum = sumSafe(deployed, 'deployed');
  const topMinerBytes = data.subarray(C.topMiner, C.topMiner + 32);
  return {
    layout: ROUND_LEN_CURRENT,
    id: readSafeU64(view, C.id, 'id'),
    deployed,
    slotHash: data.slice(C.slotHash, C.slotHash + 32),
    count: readSquares(view, C.count, 'count'),
    expiresAt: readExpiry(view, C.expiresAt),
    motherlode: readSafeU64(view, C.motherlode, 'motherlode'),
    rentPayer: bs58.encode(data.subarray(C.rentPayer, C.rentPayer + 32)),
    topMiner: bs58.encode(topMinerBytes),
    topMinerReward: sumSafe(rewards, 'rewards'),
    // A voided round has its deployed zeroed and the refund in total_winnings.
    totalDeployed: deployedSum === 0 ? totalWinnings : deployedSum,
    totalMiners: readSafeU64(view, C.totalMiners, 'total_miners'),
    totalVaulted: readSafeU64(view, C.totalVaulted, 'total_vaulted'),
    totalWinnings,
    mass: readSquares(view, C.mass, 'mass'),
    rewards,
    split: equalBytes(topMinerBytes, SPLIT_BYTES),
  };
}

function readExpiry(view: DataView, offset: number): number | null {
  return view.getBigUint64(offset, true) === U64_MAX ? null : readSafeU64(view, offset, 'expires_at');
}

function readSquares(view: DataView, offset: number, field: string): number[] {
  const out = new Array<number>(SQUARES);
  for (let i = 0; i < SQUARES; i++) out[i] = readSafeU64(view, offset + 8 * i, `${field}[${i}]`);
  return out;
}

function sumSafe(values: readonly number[], field: string): number {
  let sum = 0;
  for (const v of values) sum += v;
  if (!Number.isSafeInteger(sum)) throw new DecodeError('value_out_of_range', `sum of ${field} exceeds 2^53 - 1`);
  return sum;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Input of `encodeRound`; omitted fields are zero. */
export interface RoundAccountInput {
  readonly id: number;
  readonly deployed?: readonly number[];
  readonly count?: readonly number[];
  readonly slotHash?: Uint8Array;
  readonly expiresAt?: number | null;
  readonly motherlode?: number;
  readonly rentPayer?: Uint8Array;
  readonly topMiner?: Uint8Array;
  /** v3 layouts only (the 952-byte layout stores `rewards`). */
  readonly topMinerReward?: number;
  /** v3 layouts only. */
  readonly totalDeployed?: number;
  readonly totalMiners?: number;
  readonly totalVaulted?: number;
  readonly totalWinnings?: number;
  /** 952 bytes only. */
  readonly mass?: readonly number[];
  /** 952 bytes only. */
  readonly rewards?: readonly number[];
}

/** The 32 bytes of the split address, for writing `top_miner` of a split round. */
export function splitAddressBytes(): Uint8Array {
  return SPLIT_BYTES.slice();
}

/** Encodes a Round account in the given layout (568 by default), as the program writes it. */
export function encodeRound(round: RoundAccountInput, layout: RoundLayout = ROUND_LEN_V3): Uint8Array {
  const data = new Uint8Array(layout);
  const view = viewOf(data);
  data[0] = ROUND_DISCRIMINATOR;
  const squares = (offset: number, values: readonly number[] | undefined) => {
    for (let i = 0; i < SQUARES; i++) writeU64(view, offset + 8 * i, values?.[i] ?? 0);
  };
  const expiry = round.expiresAt === null || round.expiresAt === undefined ? U64_MAX : round.expiresAt;
  if (layout === ROUND_LEN_CURRENT) {
    writeU64(view, C.id, round.id);
    squares(C.deployed, round.deployed);
    squares(C.mass, round.mass);
    squares(C.count, round.count);
    if (round.slotHash) data.set(round.slotHash.subarray(0, 32), C.slotHash);
    writeU64(view, C.expiresAt, expiry);
    writeU64(view, C.motherlode, round.motherlode ?? 0);
    if (round.rentPayer) data.set(round.rentPayer.subarray(0, 32), C.rentPayer);
    squares(C.rewards, round.rewards);
    writeU64(view, C.totalVaulted, round.totalVaulted ?? 0);
    writeU64(view, C.totalWinnings, round.totalWinnings ?? 0);
    writeU64(view, C.totalMiners, round.totalMiners ?? 0);
    if (round.topMiner) data.set(round.topMiner.subarray(0, 32), C.topMiner);
    return data;
  }
  writeU64(view, O.id, round.id);
  squares(O.deployed, round.deployed);
  squares(O.count, round.count);
  if (round.slotHash) data.set(round.slotHash.subarray(0, 32), O.slotHash);
  writeU64(view, O.expiresAt, expiry);
  writeU64(view, O.motherlode, round.motherlode ?? 0);
  if (round.rentPayer) data.set(round.rentPayer.subarray(0, 32), O.rentPayer);
  if (round.topMiner) data.set(round.topMiner.subarray(0, 32), O.topMiner);
  writeU64(view, O.topMinerReward, round.topMinerReward ?? 0);
  writeU64(view, O.totalDeployed, round.totalDeployed ?? 0);
  if (layout === ROUND_LEN_V3) {
    writeU64(view, ROUND_TAIL_V3.totalMiners, round.totalMiners ?? 0);
    writeU64(view, ROUND_TAIL_V3.totalVaulted, round.totalVaulted ?? 0);
    writeU64(view, ROUND_TAIL_V3.totalWinnings, round.totalWinnings ?? 0);
  } else {
    writeU64(view, ROUND_TAIL_V3_LEGACY.totalVaulted, round.totalVaulted ?? 0);
    writeU64(view, ROUND_TAIL_V3_LEGACY.totalWinnings, round.totalWinnings ?? 0);
  }
  return data;
}
