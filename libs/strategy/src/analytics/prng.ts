/** A seeded generator of uniform numbers in [0, 1). */
export interface Prng {
  /** The next draw. */
  next(): number;
  /**
   * Writes `count` draws into `out`, each as `Math.floor(draw * bound) * scale`: exactly
   * what as many `next()` calls would give, without a call per draw (a bootstrap makes millions).
   */
  drawIndices(out: Int32Array, count: number, bound: number, scale: number): void;
  /** Advances past `count` draws: the state as many calls would leave, without their outputs. */
  skip(count: number): void;
}

/**
 * sfc32 seeded through splitmix32: a small, fast PRNG with a 128-bit state, so analytics
 * are reproducible from one 32-bit seed on every platform. The state lives in a typed
 * array: as plain variables, 32-bit values above 2^30 would be boxed on every step. A
 * class, not closures: every generator's methods are the same functions, so code that
 * calls them stays optimized from one generator to the next (a closure per generator
 * deoptimized the bootstrap at each new one, "wrong call target", for its first calls).
 */
/** Where skip's draws go (one per thread). */
const SKIPPED = new Int32Array(4096);

class Sfc32 implements Prng {
  private readonly state = new Uint32Array(4);

  constructor(seed: number) {
    let z = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      z = (z + 0x9e3779b9) >>> 0;
      let x = z;
      x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
      x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
      this.state[i] = x ^ (x >>> 16);
    }
    // Discard the first outputs, as the generator's authors advise.
    this.skip(12);
  }

  next(): number {
    const state = this.state;
    const a = state[0]!;
    const b = state[1]!;
    const c = state[2]!;
    const d = state[3]!;
    const t = (a + b + d) | 0;
    state[3] = d + 1;
    state[0] = b ^ (b >>> 9);
    state[1] = c + (c << 3);
    state[2] = ((c << 21) | (c >>> 11)) + t;
    return (t >>> 0) / 4294967296;
  }

  drawIndices(out: Int32Array, count: number, bound: number, scale: number): void {
    // The same steps as next(), on locals: kept in registers for the whole batch.
    const state = this.state;
    let a = state[0]!;
    let b = state[1]!;
    let c = state[2]!;
    let d = state[3]!;
    for (let i = 0; i < count; i++) {
      const t = (a + b + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
      out[i] = Math.floor(((t >>> 0) / 4294967296) * bound) * scale;
    }
    state[0] = a;
    state[1] = b;
    state[2] = c;
    state[3] = d;
  }

  skip(count: number): void {
    // Draws into a scratch batch, discarded: the same steps as drawIndices, written once.
    for (let left = count; left > 0; left -= SKIPPED.length) this.drawIndices(SKIPPED, Math.min(left, SKIPPED.length), 1, 1);
  }
}

/** A generator seeded with `seed` (its low 32 bits). */
export function createPrng(seed: number): Prng {
  return new Sfc32(seed);
}
