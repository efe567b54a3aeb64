/**
 * The ORE program's events and the instruction data history is rebuilt from (SPEC 3.2,
 * `api/src/event.rs` and `api/src/instruction.rs` in regolith-labs/ore). Events are the
 * data of the program's `Log` instruction (`[8] ++ event`), which it calls on itself,
 * signed by the board PDA; each event is a `#[repr(C)]` little-endian struct whose first
 * field is a u64 discriminator. An event is told by its discriminator *and* its length:
 * the ResetEvent grew from 112 to 144 bytes, and discriminator 2 was briefly a 40-byte
 * MotherlodeEvent before it was the DeployEvent.
 */
import { DecodeError } from '@gridlab/errors';
import { decodeBase58, encodeBase58 } from './base58';
import { isU64Max, readI64Number, readSafeU64, readU64Number, viewOf, writeU64 } from './bytes';
import { ALL_SQUARES, SQUARES, U64_MAX } from './ore-layout';

/** Instruction discriminators (the first data byte) of the ORE program since 2025-10-01. */
export const ORE_IX = { close: 5, deploy: 6, log: 8, reset: 9 } as const;

const RESET_EVENT_DISC = 0;
const DEPLOY_EVENT_DISC = 2;

/**
 * ResetEvent lengths, oldest first: 112 (2025-09-19), 120 (`num_winners` @72),
 * 128 (`motherlode` @80), 136 (`rng` @128, 2026-01-13), 144 (`deployed_winning_square`
 * @136, 2026-01-13). Since 2026-07-24 the u64 @72 is `total_miners` (miners of the whole
 * round) instead of `num_winners` (miners on the winning square), at the same length.
 */
export const RESET_EVENT_LENGTHS = [112, 120, 128, 136, 144] as const;
export type ResetEventLength = (typeof RESET_EVENT_LENGTHS)[number];
const DEPLOY_EVENT_LENGTH = 120;
/** Deploy instruction data: `[6] ++ amount u64 ++ squares u32` (since 2025-09-22). */
const DEPLOY_IX_LENGTH = 13;

/** Written by `reset` once per round. */
export interface ResetEvent {
  readonly kind: 'reset';
  readonly length: ResetEventLength;
  readonly roundId: number;
  readonly startSlot: number;
  readonly endSlot: number;
  /** null: u64::MAX, the round was voided (no randomness). */
  readonly winningSquare: number | null;
  /** Base58; the split address, a miner's authority, or all zeros (see SPEC 3.2). */
  readonly topMiner: string;
  /**
   * The u64 @72: `num_winners` (distinct miners on the winning square) until 2026-07-24,
   * `total_miners` (distinct miners of the round) since; null in the 112-byte layout.
   */
  readonly minersField: number | null;
  /** ORE paid out of the motherlode this round; null before the 128-byte layout. */
  readonly motherlode: number | null;
  readonly totalDeployed: number;
  readonly totalVaulted: number;
  readonly totalWinnings: number;
  readonly totalMinted: number;
  readonly ts: number;
  /** null before the 136-byte layout. */
  readonly rng: bigint | null;
  /** null before the 144-byte layout. */
  readonly deployedWinningSquare: number | null;
}

/** Written by `deploy` for every deploy since 2025-12-08. */
export interface DeployEvent {
  readonly kind: 'deploy';
  /** Base58 of the miner's authority. */
  readonly authority: string;
  /** Lamports per square. */
  readonly amount: number;
  /**
   * Bit i = square i. Since 2025-12-30 the squares actually deployed to; before, the
   * squares the instruction asked for (including ones the miner already held).
   */
  readonly mask: number;
  readonly roundId: number;
  readonly signer: string;
  /** null: manual (u64::MAX); else the automation's strategy. */
  readonly strategy: number | null;
  /** Squares actually deployed to by this call. */
  readonly totalSquares: number;
  readonly ts: number;
}

export type OreEvent = ResetEvent | DeployEvent;

/** A Deploy instruction's arguments (the program's input, before it skips held squares). */
export interface DeployArgs {
  /** Lamports per square. */
  readonly amount: number;
  /** Bit i = square i (25 bits). */
  readonly squares: number;
}


/**
 * The event in a Log instruction's payload (the bytes after the `[8]`), or null for an
 * event this decoder does not read (another kind, or a length no era wrote). A known
 * kind whose values do not fit (a lamport figure above 2^53) throws a DecodeError.
 */
export function decodeOreEvent(bytes: Uint8Array): OreEvent | null {
  if (bytes.length < 8) return null;
  const view = viewOf(bytes);
  // The discriminator in two halves (both small): no BigInt for every event read.
  const disc = view.getUint32(4, true) === 0 ? view.getUint32(0, true) : -1;
  if (disc === RESET_EVENT_DISC && (RESET_EVENT_LENGTHS as readonly number[]).includes(bytes.length)) {
    return decodeReset(bytes, view, bytes.length as ResetEventLength);
  }
  if (disc === DEPLOY_EVENT_DISC && bytes.length === DEPLOY_EVENT_LENGTH) return decodeDeploy(bytes, view);
  return null;
}

/** Offsets of the fields after `top_miner`, by layout (null: absent). */
function resetOffsets(length: ResetEventLength) {
  switch (length) {
    case 112:
      return { miners: null, motherlode: null, totalDeployed: 72, totalVaulted: 80, totalWinnings: 88, totalMinted: 96, ts: 104 };
    case 120:
      return { miners: 72, motherlode: null, totalDeployed: 80, totalVaulted: 88, totalWinnings: 96, totalMinted: 104, ts: 112 };
    default:
      return { miners: 72, motherlode: 80, totalDeployed: 88, totalVaulted: 96, totalWinnings: 104, totalMinted: 112, ts: 120 };
  }
}

function decodeReset(bytes: Uint8Array, view: DataView, length: ResetEventLength): ResetEvent {
  const o = resetOffsets(length);
  const square = view.getBigUint64(32, true);
  if (square !== U64_MAX && square >= BigInt(SQUARES)) throw new DecodeError('value_out_of_range', `reset event winning_square ${square} is not a square`);
  return {
    kind: 'reset',
    length,
    roundId: readSafeU64(view, 8, 'round_id'),
    startSlot: readSafeU64(view, 16, 'start_slot'),
    endSlot: readSafeU64(view, 24, 'end_slot'),
    winningSquare: square === U64_MAX ? null : Number(square),
    topMiner: encodeBase58(bytes.subarray(40, 72)),
    minersField: o.miners === null ? null : readSafeU64(view, o.miners, 'total_miners'),
    motherlode: o.motherlode === null ? null : readSafeU64(view, o.motherlode, 'motherlode'),
    totalDeployed: readSafeU64(view, o.totalDeployed, 'total_deployed'),
    totalVaulted: readSafeU64(view, o.totalVaulted, 'total_vaulted'),
    totalWinnings: readSafeU64(view, o.totalWinnings, 'total_winnings'),
    totalMinted: readSafeU64(view, o.totalMinted, 'total_minted'),
    ts: Number(view.getBigInt64(o.ts, true)),
    rng: length >= 136 ? view.getBigUint64(128, true) : null,
    deployedWinningSquare: length >= 144 ? readSafeU64(view, 136, 'deployed_winning_square') : null,
  };
}

function decodeDeploy(bytes: Uint8Array, view: DataView): DeployEvent {
  const authority = encodeBase58(bytes.subarray(8, 40));
  return {
    kind: 'deploy',
    authority,
    amount: readSafeU64(view, 40, 'amount'),
    // The squares are the low 25 bits.
    mask: view.getUint32(48, true) & ALL_SQUARES,
    roundId: readSafeU64(view, 56, 'round_id'),
    // A manual deploy's signer is its authority: encoded once.
    signer: sameBytes(bytes, 8, 64, 32) ? authority : encodeBase58(bytes.subarray(64, 96)),
    strategy: isU64Max(view, 96) ? null : readU64Number(view, 96),
    totalSquares: readSafeU64(view, 104, 'total_squares'),
    ts: readI64Number(view, 112),
  };
}

function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}

/** What `encodeResetEvent` writes; fields a layout lacks are left out of it. */
export type ResetEventInput = Omit<ResetEvent, 'kind' | 'topMiner'> & { readonly topMiner: Uint8Array };

/** The ResetEvent bytes in its layout (`length`), as the program logged them then. */
export function encodeResetEvent(event: ResetEventInput): Uint8Array {
  const bytes = new Uint8Array(event.length);
  const view = viewOf(bytes);
  const o = resetOffsets(event.length);
  writeU64(view, 0, RESET_EVENT_DISC);
  writeU64(view, 8, event.roundId);
  writeU64(view, 16, event.startSlot);
  writeU64(view, 24, event.endSlot);
  writeU64(view, 32, event.winningSquare === null ? U64_MAX : event.winningSquare);
  bytes.set(event.topMiner.subarray(0, 32), 40);
  if (o.miners !== null) writeU64(view, o.miners, event.minersField ?? 0);
  if (o.motherlode !== null) writeU64(view, o.motherlode, event.motherlode ?? 0);
  writeU64(view, o.totalDeployed, event.totalDeployed);
  writeU64(view, o.totalVaulted, event.totalVaulted);
  writeU64(view, o.totalWinnings, event.totalWinnings);
  writeU64(view, o.totalMinted, event.totalMinted);
  view.setBigInt64(o.ts, BigInt(event.ts), true);
  if (event.length >= 136) writeU64(view, 128, event.rng ?? 0n);
  if (event.length >= 144) writeU64(view, 136, event.deployedWinningSquare ?? 0);
  return bytes;
}

/** What `encodeDeployEvent` writes. */
export type DeployEventInput = Omit<DeployEvent, 'kind' | 'authority' | 'signer'> & { readonly authority: Uint8Array; readonly signer: Uint8Array };

export function encodeDeployEvent(event: DeployEventInput): Uint8Array {
  const bytes = new Uint8Array(DEPLOY_EVENT_LENGTH);
  const view = viewOf(bytes);
  writeU64(view, 0, DEPLOY_EVENT_DISC);
  bytes.set(event.authority.subarray(0, 32), 8);
  writeU64(view, 40, event.amount);
  writeU64(view, 48, event.mask);
  writeU64(view, 56, event.roundId);
  bytes.set(event.signer.subarray(0, 32), 64);
  writeU64(view, 96, event.strategy === null ? U64_MAX : event.strategy);
  writeU64(view, 104, event.totalSquares);
  view.setBigInt64(112, BigInt(event.ts), true);
  return bytes;
}

/** The data of a Log instruction carrying `event`: `[8] ++ event`. */
export function logInstructionData(event: Uint8Array): Uint8Array {
  const data = new Uint8Array(1 + event.length);
  data[0] = ORE_IX.log;
  data.set(event, 1);
  return data;
}

/** A Deploy instruction's data. */
export function encodeDeployArgs(args: DeployArgs): Uint8Array {
  const data = new Uint8Array(DEPLOY_IX_LENGTH);
  const view = viewOf(data);
  data[0] = ORE_IX.deploy;
  writeU64(view, 1, args.amount);
  view.setUint32(9, args.squares, true);
  return data;
}

/** A Deploy instruction's arguments, or null when `data` is not one. */
export function decodeDeployArgs(data: Uint8Array): DeployArgs | null {
  if (data.length !== DEPLOY_IX_LENGTH || data[0] !== ORE_IX.deploy) return null;
  const view = viewOf(data);
  return { amount: readSafeU64(view, 1, 'amount'), squares: view.getUint32(9, true) & ALL_SQUARES };
}

/** What `reset` logs of the round's randomness: `var value: <base58 of the 32 bytes>`. */
export const VAR_VALUE_LOG_PREFIX = 'Program log: var value: ';

const LOG_LINE = 'Program log: ';
const INVOKE = ' invoke [';

/**
 * The 32 bytes of the `var value:` line that the program `programId` logged itself, or
 * null when it logged none. Any program can log a line that reads `var value: ...`, so a
 * line counts only while the ORE program's own invocation is the innermost one, followed
 * through the runtime's `Program <id> invoke [n]` and `Program <id> success|failed` lines
 * (which no program can write: its own lines start `Program log:` or `Program data:`).
 */
export function varValueFromLogs(logs: readonly string[] | null | undefined, programId: string): Uint8Array | null {
  if (logs === null || logs === undefined) return null;
  const stack: string[] = [];
  for (const line of logs) {
    if (line.startsWith(LOG_LINE)) {
      if (!line.startsWith(VAR_VALUE_LOG_PREFIX) || stack[stack.length - 1] !== programId) continue;
      try {
        const bytes = decodeBase58(line.slice(VAR_VALUE_LOG_PREFIX.length).trim());
        if (bytes.length === 32) return bytes;
      } catch {
        // not base58: not the program's line
      }
      continue;
    }
    if (!line.startsWith('Program ')) continue;
    const idEnd = line.indexOf(' ', 8);
    if (idEnd < 0) continue;
    const id = line.slice(8, idEnd);
    if (line.startsWith(INVOKE, idEnd)) {
      // The depth the runtime gives: a frame whose end the logs lost (truncated) is dropped.
      const depth = Number.parseInt(line.slice(idEnd + INVOKE.length), 10);
      if (Number.isInteger(depth) && depth >= 1) stack.length = Math.min(stack.length, depth - 1);
      stack.push(id);
    } else if (line.startsWith(' success', idEnd) || line.startsWith(' failed', idEnd)) {
      if (stack[stack.length - 1] === id) stack.pop();
    }
  }
  return null;
}
