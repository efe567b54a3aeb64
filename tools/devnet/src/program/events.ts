/**
 * The program's events and instruction data, transcribed from `api/src/event.rs` and
 * `api/src/instruction.rs` in regolith-labs/ore. Events are logged by a self-CPI of the
 * `Log` instruction (`program/src/log.rs`; `api/src/sdk.rs` `program_log`), whose data is
 * the instruction's discriminator `8` followed by the event's bytes.
 */
import { Pod } from './pod';
import { U64_MAX } from './state';

/** `OreInstruction` (`api/src/instruction.rs`). */
export const INSTRUCTION = { close: 5, deploy: 6, log: 8, reset: 9 } as const;
/** `OreEvent` (`api/src/event.rs`). */
const RESET = 0;
const DEPLOY = 2;

/** What a reset logs. */
export interface ResetFields {
  readonly roundId: number;
  readonly startSlot: number;
  readonly endSlot: number;
  /** null: voided (`u64::MAX`). */
  readonly winningSquare: number | null;
  readonly topMiner: Uint8Array;
  /** `num_winners` until d891e3b (2026-07-24), `total_miners` since. */
  readonly miners: number;
  readonly motherlode: number;
  readonly totalDeployed: number;
  readonly totalVaulted: number;
  readonly totalWinnings: number;
  readonly totalMinted: number;
  readonly ts: number;
  readonly rng: bigint;
  readonly deployedWinningSquare: number;
}

/**
 * `ResetEvent` as the round's era logged it: 128 bytes from 6f0a956 (2025-10-02, `motherlode`
 * after the miners field) to ab384db, 144 bytes since 43fc71e (2026-01-13: `rng`, then
 * `deployed_winning_square`).
 */
export function resetEvent(e: ResetFields, length: 128 | 144): Uint8Array {
  const pod = new Pod(length)
    .u64(RESET)
    .u64(e.roundId)
    .u64(e.startSlot)
    .u64(e.endSlot)
    .u64(e.winningSquare ?? U64_MAX)
    .raw(e.topMiner)
    .u64(e.miners)
    .u64(e.motherlode)
    .u64(e.totalDeployed)
    .u64(e.totalVaulted)
    .u64(e.totalWinnings)
    .u64(e.totalMinted)
    .i64(e.ts);
  if (length === 144) pod.u64(e.rng).u64(e.deployedWinningSquare);
  return pod.done();
}

/** What a deploy logs (since f4b14c3, 2025-12-08). */
export interface DeployFields {
  readonly authority: Uint8Array;
  readonly amount: number;
  /** Until 2025-12-30 the squares asked for; since, the squares deployed to. */
  readonly mask: number;
  readonly roundId: number;
  readonly signer: Uint8Array;
  /** null: manual (`u64::MAX`). */
  readonly strategy: number | null;
  readonly totalSquares: number;
  readonly ts: number;
}

/** `DeployEvent` (f4b14c3): disc, authority, amount, mask, round_id, signer, strategy, total_squares, ts. */
export function deployEvent(e: DeployFields): Uint8Array {
  return new Pod(120)
    .u64(DEPLOY)
    .raw(e.authority)
    .u64(e.amount)
    .u64(e.mask)
    .u64(e.roundId)
    .raw(e.signer)
    .u64(e.strategy ?? U64_MAX)
    .u64(e.totalSquares)
    .i64(e.ts)
    .done();
}

/** The `Log` instruction's data: `[8] ++ event`. */
export function logData(event: Uint8Array): Uint8Array {
  const data = new Uint8Array(1 + event.length);
  data[0] = INSTRUCTION.log;
  data.set(event, 1);
  return data;
}

/** `Deploy` instruction data: `[6] ++ amount [u8; 8] ++ squares [u8; 4]` (little-endian). */
export function deployData(amount: number, squares: number): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  data[0] = INSTRUCTION.deploy;
  view.setBigUint64(1, BigInt(amount), true);
  view.setUint32(9, squares >>> 0, true);
  return data;
}
