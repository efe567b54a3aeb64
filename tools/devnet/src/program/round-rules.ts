/**
 * The rules a reset and a checkpoint apply to a round, transcribed from regolith-labs/ore:
 * `Round::rng`, `winning_square`, `top_miner_sample`, `did_hit_motherlode`,
 * `is_split_reward`, `distribution_mask` and `calculate_fees` (`api/src/state/round.rs`),
 * and the settlement arithmetic of `program/src/reset.rs`. Every `/` is u64 division
 * (truncating), every `saturating_sub` stops at 0. Nothing here is shared with the
 * indexer's reading of the program (libs/chain): the devnet and the indexer are two
 * independent readings, held against each other and against the golden vectors.
 */
import { keccak_256 } from '@noble/hashes/sha3';

const SQUARES = 25;
const MASK_64 = (1n << 64n) - 1n;

/** `Round::rng`: the XOR of the slot hash's four little-endian u64 words; null for all 0x00 or all 0xFF (no randomness). */
export function rng(slotHash: Uint8Array): bigint | null {
  if (slotHash.every((b) => b === 0) || slotHash.every((b) => b === 0xff)) return null;
  const view = new DataView(slotHash.buffer, slotHash.byteOffset, 32);
  return view.getBigUint64(0, true) ^ view.getBigUint64(8, true) ^ view.getBigUint64(16, true) ^ view.getBigUint64(24, true);
}

/** `Round::winning_square`: `rng % 25`. */
export function winningSquare(r: bigint): number {
  return Number(r % 25n);
}

/** `u64::reverse_bits`. */
export function reverseBits(value: bigint): bigint {
  let v = value & MASK_64;
  let out = 0n;
  for (let i = 0; i < 64; i++) {
    out = (out << 1n) | (v & 1n);
    v >>= 1n;
  }
  return out;
}

/** `Round::top_miner_sample`: `rng.reverse_bits() % deployed[w]` (0 when nobody deployed there). */
export function topMinerSample(r: bigint, deployedOnSquare: number): bigint {
  return deployedOnSquare === 0 ? 0n : reverseBits(r) % BigInt(deployedOnSquare);
}

/** `Round::did_hit_motherlode`: one in 625 until 762d353 (2026-07-14), one in 500 since. */
export function hitsMotherlode(r: bigint, odds: 500 | 625): boolean {
  return reverseBits(r) % BigInt(odds) === 0n;
}

/** `Round::is_split_reward(rng)` until f2c1958 (2026-07-29): the four u16 words of `rng.reverse_bits()` (LE) XOR to an even number. */
export function isSplitByRng(r: bigint): boolean {
  const reversed = reverseBits(r);
  let x = 0n;
  for (let i = 0n; i < 4n; i++) x ^= (reversed >> (16n * i)) & 0xffffn;
  return x % 2n === 0n;
}

/**
 * `Round::distribution_mask` (0a22db3, the rule since f2c1958): a Fisher-Yates shuffle of
 * the squares driven by `keccak(id LE)` two bytes at a time (rehashed when used up); the
 * first 10 shuffled squares get their bit set (one top miner), the rest split.
 */
function distributionMask(roundId: number): number {
  const id = new Uint8Array(8);
  new DataView(id.buffer).setBigUint64(0, BigInt(roundId), true);
  let randomness = keccak_256(id);
  let offset = 0;
  const indices = Array.from({ length: SQUARES }, (_, i) => i);
  for (let i = SQUARES - 1; i >= 1; i--) {
    if (offset + 2 > randomness.length) {
      randomness = keccak_256(randomness);
      offset = 0;
    }
    const j = (randomness[offset]! | (randomness[offset + 1]! << 8)) % (i + 1);
    const swap = indices[i]!;
    indices[i] = indices[j]!;
    indices[j] = swap;
    offset += 2;
  }
  let mask = 0;
  for (let k = 0; k < 10; k++) mask |= 1 << indices[k]!;
  return mask >>> 0;
}

/** `Round::is_split_reward(winning_square)` since f2c1958: the square's mask bit is 0. */
export function isSplitSquare(roundId: number, square: number): boolean {
  return (distributionMask(roundId) & (1 << square)) === 0;
}

/** What a reset writes into a settled round and sends away. */
export interface ResetTotals {
  readonly totalVaulted: number;
  readonly totalWinnings: number;
  /** Lamports sent to the admin fee collector. */
  readonly adminFee: number;
}

/**
 * The parimutuel reset (`program/src/reset.rs` at 3112ab7, the same since v3), for a round
 * with randomness: `total_admin_fee = total / 100`; nobody on the winning square vaults
 * `total - total_admin_fee`; else `winnings = L - L/100`, `vault = winnings/10`,
 * `total_winnings = winnings - vault` with `L` the other squares' SOL.
 */
export function parimutuelReset(deployed: readonly number[], w: number): ResetTotals {
  const total = deployed.reduce((a, b) => a + b, 0);
  const totalAdminFee = Math.floor(total / 100);
  if (deployed[w] === 0) return { adminFee: totalAdminFee, totalVaulted: total - totalAdminFee, totalWinnings: 0 };
  let losing = 0;
  for (let i = 0; i < SQUARES; i++) if (i !== w) losing += deployed[i]!;
  const winnings = losing - Math.floor(losing / 100);
  const vaultAmount = Math.floor(winnings / 10);
  return { adminFee: totalAdminFee, totalVaulted: vaultAmount, totalWinnings: winnings - vaultAmount };
}

/**
 * The returns reset (999e16e, "remove parimutuel"; `calculate_fees` at 70763fc): per
 * square with SOL, `admin = max(1, t/100)`; every square but the winning one adds
 * `protocol = max(1, (t - admin)/10)`; `total_returned_sol = total - (admin + protocol)`,
 * saturating.
 */
export function returnsReset(deployed: readonly number[], w: number): ResetTotals {
  let adminFee = 0;
  let protocolFee = 0;
  let total = 0;
  for (let i = 0; i < SQUARES; i++) {
    const t = deployed[i]!;
    total += t;
    if (t === 0) continue;
    const admin = Math.max(1, Math.floor(t / 100));
    adminFee += admin;
    if (i !== w) protocolFee += Math.max(1, Math.floor(Math.max(0, t - admin) / 10));
  }
  return { adminFee, totalVaulted: protocolFee, totalWinnings: Math.max(0, total - (adminFee + protocolFee)) };
}
