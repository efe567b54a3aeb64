/**
 * Seed chains ground so that chosen squares win: a test can choose the winning square and
 * still run the real entropy `next`, `sample` and `reveal` (the commit-reveal itself is in
 * `@gridlab/devnet/real`'s entropy.ts).
 */
import { slotHashRng, winningSquare } from '@gridlab/chain';
import { keccak, u64Le, varValue } from '@gridlab/devnet/real';

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
