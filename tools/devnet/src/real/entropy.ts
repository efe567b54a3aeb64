/**
 * The entropy program's commit-reveal (regolith-labs/entropy `program/src/{next,sample,reveal}.rs`
 * at 0eddca7, the program of December 2025): `next` makes the last revealed seed the commit;
 * `sample` records the slot hash of `end_at`; `reveal(seed)` checks `keccak(seed) == commit`
 * and sets `value = keccak(slot_hash ++ seed ++ samples u64 LE)`. ORE's reset then takes
 * `rng = value[0..8] ^ value[8..16] ^ value[16..24] ^ value[24..32]` (LE u64 words) and the
 * winning square `rng % 25` (ore `api/src/state/round.rs`).
 */
import { keccak_256 } from '@noble/hashes/sha3';

/** Keccak-256 of the concatenated parts (Solana's `keccak::hashv`). */
export function keccak(...parts: readonly Uint8Array[]): Uint8Array {
  const hash = keccak_256.create();
  for (const part of parts) hash.update(part);
  return hash.digest();
}

export function u64Le(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, true);
  return out;
}

/** The value `reveal` finalizes. */
export function varValue(slotHash: Uint8Array, seed: Uint8Array, samples: bigint): Uint8Array {
  return keccak(slotHash, seed, u64Le(samples));
}

/**
 * The slot hash `sample` records when the SlotHashes sysvar has no entry for `end_at`
 * (`sample.rs`: `keccak(end_at u64 LE)`), which is LiteSVM's case: its sysvar is not
 * filled as slots are warped over.
 */
export function fallbackSlotHash(endAt: bigint): Uint8Array {
  return keccak(u64Le(endAt));
}
