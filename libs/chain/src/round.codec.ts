import { DecodeError } from '@gridlab/errors';
import bs58 from 'bs58';
import { readSafeU64, viewOf, writeU64 } from './bytes';
import {
  HEADER_BYTES,
  ROUND_DISCRIMINATOR,
  ROUND_LEN_V3,
  ROUND_LEN_V3_LEGACY,
  ROUND_LEN_V4,
  ROUND_OFFSETS as O,
  ROUND_TAIL_V3,
  ROUND_TAIL_V3_LEGACY,
  SQUARES,
  U64_MAX,
} from './ore-layout';

export type RoundLayout = typeof ROUND_LEN_V3 | typeof ROUND_LEN_V3_LEGACY;

/** A decoded ORE v3 Round account. Lamport fields are integers below 2^53. */
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
  readonly topMinerReward: number;
  readonly totalDeployed: number;
  /** Present only in the 568-byte layout. */
  readonly totalMiners: number | null;
  readonly totalVaulted: number;
  readonly totalWinnings: number;
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
 * Decodes a Round account, choosing the layout by length. A v4 (952-byte) account or
 * any other length is rejected with a DecodeError naming it: never guessed at.
 */
export function decodeRound(data: Uint8Array): RoundAccount {
  if (data.length === ROUND_LEN_V4) {
    throw new DecodeError(
      'unsupported_program_version',
      `round account of ${ROUND_LEN_V4} bytes is the ORE v4 layout, which this indexer does not decode`,
    );
  }
  if (data.length !== ROUND_LEN_V3 && data.length !== ROUND_LEN_V3_LEGACY) {
    throw new DecodeError('unknown_account_length', `round account has unknown length ${data.length}`);
  }
  checkHeader(data, ROUND_DISCRIMINATOR, 'round');
  const view = viewOf(data);
  const deployed = readSquares(view, O.deployed, 'deployed');
  const count = readSquares(view, O.count, 'count');
  const legacy = data.length === ROUND_LEN_V3_LEGACY;
  const rawExpiry = view.getBigUint64(O.expiresAt, true);
  return {
    layout: legacy ? ROUND_LEN_V3_LEGACY : ROUND_LEN_V3,
    id: readSafeU64(view, O.id, 'id'),
    deployed,
    slotHash: data.slice(O.slotHash, O.slotHash + 32),
    count,
    expiresAt: rawExpiry === U64_MAX ? null : readSafeU64(view, O.expiresAt, 'expires_at'),
    motherlode: readSafeU64(view, O.motherlode, 'motherlode'),
    rentPayer: bs58.encode(data.subarray(O.rentPayer, O.rentPayer + 32)),
    topMiner: bs58.encode(data.subarray(O.topMiner, O.topMiner + 32)),
    topMinerReward: readSafeU64(view, O.topMinerReward, 'top_miner_reward'),
    totalDeployed: readSafeU64(view, O.totalDeployed, 'total_deployed'),
    totalMiners: legacy ? null : readSafeU64(view, ROUND_TAIL_V3.totalMiners, 'total_miners'),
    totalVaulted: readSafeU64(view, legacy ? ROUND_TAIL_V3_LEGACY.totalVaulted : ROUND_TAIL_V3.totalVaulted, 'total_vaulted'),
    totalWinnings: readSafeU64(
      view,
      legacy ? ROUND_TAIL_V3_LEGACY.totalWinnings : ROUND_TAIL_V3.totalWinnings,
      'total_winnings',
    ),
  };
}

function readSquares(view: DataView, offset: number, field: string): number[] {
  const out = new Array<number>(SQUARES);
  for (let i = 0; i < SQUARES; i++) out[i] = readSafeU64(view, offset + 8 * i, `${field}[${i}]`);
  return out;
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
  readonly topMinerReward?: number;
  readonly totalDeployed?: number;
  readonly totalMiners?: number;
  readonly totalVaulted?: number;
  readonly totalWinnings?: number;
}

/** Encodes a Round account in the given layout (568 by default), as the program writes it. */
export function encodeRound(round: RoundAccountInput, layout: RoundLayout = ROUND_LEN_V3): Uint8Array {
  const data = new Uint8Array(layout);
  const view = viewOf(data);
  data[0] = ROUND_DISCRIMINATOR;
  writeU64(view, O.id, round.id);
  const deployed = round.deployed ?? [];
  const count = round.count ?? [];
  for (let i = 0; i < SQUARES; i++) {
    writeU64(view, O.deployed + 8 * i, deployed[i] ?? 0);
    writeU64(view, O.count + 8 * i, count[i] ?? 0);
  }
  if (round.slotHash) data.set(round.slotHash.subarray(0, 32), O.slotHash);
  writeU64(view, O.expiresAt, round.expiresAt === null || round.expiresAt === undefined ? U64_MAX : round.expiresAt);
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
