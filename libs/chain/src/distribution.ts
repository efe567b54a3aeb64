/**
 * Who takes a round's ORE prize when a square wins (`api/src/state/round.rs`): split pro
 * rata among the square's miners, or to one top miner drawn by stake.
 *
 * Since 2026-07-29 the rule is per square and known before the round: a Fisher-Yates
 * shuffle of the 25 squares seeded by `keccak256(round id, u64 LE)` marks its first 10
 * squares "solo" (one top miner) and leaves the other 15 "split". Before, one coin per
 * round decided for whichever square won, from the round's randomness.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { SQUARES } from './ore-layout';

/** Squares whose prize goes to one top miner, per round. */
const SOLO_SQUARES = 10;

/** Bit i set: square i's prize goes to one top miner if it wins; clear: it is split (`Round::distribution_mask`). */
export function distributionMask(roundId: number): number {
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
    const r = randomness[offset]! | (randomness[offset + 1]! << 8);
    const j = r % (i + 1);
    [indices[i], indices[j]] = [indices[j]!, indices[i]!];
    offset += 2;
  }
  let mask = 0;
  for (let k = 0; k < SOLO_SQUARES; k++) mask |= 1 << indices[k]!;
  return mask >>> 0;
}

/** Whether square `square` of round `roundId` would split its prize if it won (the rule since 2026-07-29). */
export function isSplitSquare(roundId: number, square: number): boolean {
  return (distributionMask(roundId) & (1 << square)) === 0;
}

/**
 * The rule before 2026-07-29: the prize of the whole round is split when the u16 words of
 * `reverse_bits(rng)` XOR to an even number (odds of one in two since 2025-10-24).
 */
export function isSplitByRng(rng: bigint): boolean {
  let reversed = 0n;
  let v = rng;
  for (let i = 0; i < 64; i++) {
    reversed = (reversed << 1n) | (v & 1n);
    v >>= 1n;
  }
  const r = Number(reversed & 0xffffn) ^ Number((reversed >> 16n) & 0xffffn) ^ Number((reversed >> 32n) & 0xffffn) ^ Number((reversed >> 48n) & 0xffffn);
  return r % 2 === 0;
}
