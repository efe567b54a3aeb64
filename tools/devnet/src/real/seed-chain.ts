/**
 * The entropy provider's seed chain for the devnet's live rounds, from the devnet's seed:
 * as a provider keeps one, each seed revealed is the commitment of the next
 * (`keccak(seed[k]) == seed[k - 1]`), so the chain is computed from its far end and
 * revealed backwards. Only every SEGMENT-th seed is kept; a round's seed is hashed again
 * from the kept one above it (at most SEGMENT - 1 hashes, once per round).
 */
import { createHash } from 'node:crypto';
import { keccak } from './entropy';

/** Rounds the chain covers by default: at 185 slots of 400 ms a round, about two weeks. */
const DEFAULT_CHAIN_LENGTH = 16_384;
const SEGMENT = 128;

export class SeedChain {
  /** kept[m] = seed[m * SEGMENT + SEGMENT - 1] (or the last seed, for the last segment). */
  private readonly kept: Uint8Array[] = [];
  /** What the Var holds as revealed before the first live round: `next` makes it the commitment of seed 0. */
  readonly commitment: Uint8Array;

  constructor(
    devnetSeed: number,
    readonly length = DEFAULT_CHAIN_LENGTH,
  ) {
    let seed: Uint8Array = new Uint8Array(createHash('sha256').update(`gridlab-devnet-entropy:${devnetSeed}`).digest());
    const kept = new Array<Uint8Array>(Math.ceil(length / SEGMENT));
    for (let k = length - 1; k >= 0; k--) {
      if (k % SEGMENT === SEGMENT - 1 || k === length - 1) kept[Math.floor(k / SEGMENT)] = seed;
      seed = keccak(seed);
    }
    this.kept = kept;
    this.commitment = seed;
  }

  /** The seed revealed in the k-th live round (0-based). */
  seed(k: number): Uint8Array {
    if (!Number.isSafeInteger(k) || k < 0 || k >= this.length) {
      throw new RangeError(`the entropy seed chain has ${this.length} seeds; round ${k} needs more (start the devnet again from genesis)`);
    }
    const m = Math.floor(k / SEGMENT);
    const top = Math.min(m * SEGMENT + SEGMENT - 1, this.length - 1);
    let seed = this.kept[m]!;
    for (let j = top; j > k; j--) seed = keccak(seed);
    return seed;
  }
}
