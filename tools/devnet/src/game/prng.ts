/**
 * A seeded pseudo-random generator (xoshiro128**): the devnet's game must be the same
 * for the same seed, so nothing in it uses Math.random.
 */
/** A Prng's state, JSON-safe. */
export interface PrngState {
  readonly words: readonly [number, number, number, number];
  readonly spareNormal: number | null;
}

export class Prng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spareNormal: number | undefined;

  constructor(seed: number) {
    // splitmix32 expands the seed into four non-zero state words.
    let x = seed >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next() | 1;
  }

  /** A generator whose state is 16 bytes of a hash (a stream of its own per round and purpose). */
  static fromBytes(bytes: Uint8Array): Prng {
    if (bytes.length < 16) throw new RangeError('a Prng state needs 16 bytes');
    const prng = new Prng(0);
    const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
    // xoshiro's state must not be all zero; forcing one bit keeps every state valid.
    prng.setState({ words: [view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true), view.getUint32(12, true) | 1], spareNormal: null });
    return prng;
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 0x1_0000_0000;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Box-Muller, caching the second value). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const v = this.spareNormal;
      this.spareNormal = undefined;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** The generator's whole state (four words and the cached normal), to continue it later. */
  state(): PrngState {
    return { words: [this.s0, this.s1, this.s2, this.s3], spareNormal: this.spareNormal ?? null };
  }

  /** Continues from `state()`: the same sequence follows. */
  setState(state: PrngState): void {
    [this.s0, this.s1, this.s2, this.s3] = state.words;
    this.spareNormal = state.spareNormal ?? undefined;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.nextU32() & 0xff;
    return out;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
