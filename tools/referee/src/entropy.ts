/**
 * The entropy program's commit-reveal, computed ahead so a test can choose the winning
 * square and still run the real `next`, `sample` and `reveal` (regolith-labs/entropy
 * `program/src/{next,sample,reveal}.rs` at 0eddca7, the program of December 2025):
 * `next` makes the last revealed seed the commit; `sample` records the slot hash of
 * `end_at`; `reveal(seed)` checks `keccak(seed) == commit` and sets
 * `value = keccak(slot_hash ++ seed ++ samples u64 LE)`. ORE's reset then takes
 * `rng = value[0..8] ^ value[8..16] ^ value[16..24] ^ value[24..32]` (LE u64 words)
 * and the winning square `rng % 25` (ore `api/src/state/round.rs`).
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { slotHashRng, winningSquare } from '@gridlab/chain';

/** Keccak-256 of the concatenated parts (Solana's `keccak::hashv`). */
export function keccak(...parts: readonly Uint8Array[]): Uint8Array {
  const hash = keccak_256.create();
  for (const part of parts) hash.update(part);
  return hash.digest();
}

function u64Le(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, true);
  return out;
}

/** The value `reveal` finalizes. */
export function varValue(slotHash: Uint8Array, seed: Uint8Array, samples: bigint): Uint8Array {
  return keccak(slotHash, seed, u64Le(samples));
}

/** What one round's reveal must produce. */
export interface RoundDraw {
  /** The slot hash `sample` will record for the round's `end_at`. */
  readonly slotHash: Uint8Array;
  /** The Var's `samples` after that round's `next`. */
  readonly samples: bigint;
  readonly square: number;
  /** Further conditions on the round's rng (for example: not a split round). */
  readonly accept?: (rng: bigint) => boolean;
}

/** Seeds for consecutive rounds, and the values they reveal. */
export interface SeedChain {
  /** The seed to store in the Var before the first round: `next` makes it the commitment. */
  readonly commitment: Uint8Array;
  /** `seeds[k]` is revealed in round k; `keccak(seeds[k + 1]) == seeds[k]`. */
  readonly seeds: readonly Uint8Array[];
  readonly values: readonly Uint8Array[];
}

/**
 * A hash chain of seeds, as an entropy provider keeps one (each revealed seed is the
 * commitment of the next), whose values make each round's `square` win. The last seed is
 * `keccak(label ++ i)` for the first i that fits all rounds (about 25^rounds tries, more
 * with `accept`).
 * Deterministic: same inputs, same chain.
 */
export function grindSeedChain(draws: readonly RoundDraw[], label: string): SeedChain {
  const prefix = new TextEncoder().encode(label);
  const limit = 1000n * 25n ** BigInt(draws.length);
  for (let i = 0n; i < limit; i++) {
    const seeds = new Array<Uint8Array>(draws.length);
    let seed = keccak(prefix, u64Le(i));
    for (let k = draws.length - 1; k >= 0; k--) {
      seeds[k] = seed;
      seed = keccak(seed);
    }
    const values = draws.map((d, k) => varValue(d.slotHash, seeds[k]!, d.samples));
    const fits = (v: Uint8Array, d: RoundDraw) => winningSquare(v) === d.square && (d.accept === undefined || d.accept(slotHashRng(v)));
    if (values.every((v, k) => fits(v, draws[k]!))) return { commitment: seed, seeds, values };
  }
  throw new Error(`no seed chain in ${limit} tries`);
}

/**
 * The slot hash `sample` records when the SlotHashes sysvar has no entry for `end_at`
 * (`sample.rs`: `keccak(end_at u64 LE)`), which is LiteSVM's case: its sysvar is not
 * filled as slots are warped over.
 */
export function fallbackSlotHash(endAt: bigint): Uint8Array {
  return keccak(u64Le(endAt));
}
