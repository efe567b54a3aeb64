/**
 * The program's Round and Board accounts, transcribed from `api/src/state/round.rs` and
 * `board.rs` in regolith-labs/ore: the v3 Round of f2c552c (2025-12-04, `total_miners`
 * added: 568 bytes) and the Round of the 2026-06-25 migration (bd617d1; fields as at
 * 70763fc: 952 bytes), the Board of 6638ba3 (40 bytes). Discriminators from
 * `api/src/state/mod.rs` (`OreAccount`).
 */
import { Pod } from './pod';

const ROUND_DISCRIMINATOR = 109;
const BOARD_DISCRIMINATOR = 105;
const SQUARES = 25;
/** `u64::MAX`: a round waiting for its first deploy (`expires_at`), a board waiting for one (`end_slot`). */
export const U64_MAX = (1n << 64n) - 1n;

/** A Round account's fields (lamports, slots and ORE base units as numbers; `u64::MAX` as a bigint). */
export interface RoundFields {
  readonly id: number;
  readonly deployed: readonly number[];
  readonly count: readonly number[];
  /** 32 bytes: all zero until the reset writes the randomness. */
  readonly slotHash: Uint8Array;
  readonly expiresAt: number | bigint;
  readonly motherlode: number;
  readonly rentPayer: Uint8Array;
  readonly topMiner: Uint8Array;
  /** The prize (v3: `top_miner_reward`; since the migration `rewards[0]`, the others 0). */
  readonly reward: number;
  readonly totalMiners: number;
  readonly totalVaulted: number;
  readonly totalWinnings: number;
  /** v3's `total_deployed` field when it is not the sum of `deployed` (a voided reset zeroes it). */
  readonly totalDeployed?: number;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** `Round` at f2c552c: id, deployed, slot_hash, count, expires_at, motherlode, rent_payer, top_miner, top_miner_reward, total_deployed, total_miners, total_vaulted, total_winnings. */
export function roundV3(r: RoundFields): Uint8Array {
  return new Pod(8 + 8 + 200 + 32 + 200 + 8 + 8 + 32 + 32 + 8 * 5)
    .header(ROUND_DISCRIMINATOR)
    .u64(r.id)
    .u64s(r.deployed, SQUARES)
    .raw(r.slotHash)
    .u64s(r.count, SQUARES)
    .u64(r.expiresAt)
    .u64(r.motherlode)
    .raw(r.rentPayer)
    .raw(r.topMiner)
    .u64(r.reward)
    .u64(r.totalDeployed ?? sum(r.deployed))
    .u64(r.totalMiners)
    .u64(r.totalVaulted)
    .u64(r.totalWinnings)
    .done();
}

/** `Round` since bd617d1: id, deployed, mass (never written: 0), count, slot_hash, expires_at, motherlode, rent_payer, rewards, total_vaulted, total_winnings (`total_returned_sol`), total_miners, top_miner. */
export function roundV4(r: RoundFields): Uint8Array {
  return new Pod(8 + 8 + 200 * 3 + 32 + 8 + 8 + 32 + 200 + 8 * 3 + 32)
    .header(ROUND_DISCRIMINATOR)
    .u64(r.id)
    .u64s(r.deployed, SQUARES)
    .u64s([], SQUARES)
    .u64s(r.count, SQUARES)
    .raw(r.slotHash)
    .u64(r.expiresAt)
    .u64(r.motherlode)
    .raw(r.rentPayer)
    .u64s([r.reward], SQUARES)
    .u64(r.totalVaulted)
    .u64(r.totalWinnings)
    .u64(r.totalMiners)
    .raw(r.topMiner)
    .done();
}

/** `Board` at 6638ba3: round_id, start_slot, end_slot (`u64::MAX` while waiting), and `epoch_id` (v3) or `production_cost_ema`. */
export function board(fields: { roundId: number; startSlot: number; endSlot: number | null; fourth: number }): Uint8Array {
  return new Pod(8 + 8 * 4)
    .header(BOARD_DISCRIMINATOR)
    .u64(fields.roundId)
    .u64(fields.startSlot)
    .u64(fields.endSlot ?? U64_MAX)
    .u64(fields.fourth)
    .done();
}
