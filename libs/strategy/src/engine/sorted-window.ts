/** Values per block of the sorted list: a block splits when it reaches twice this. */
const BLOCK = 128;

function upperBound(a: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lowerBound(a: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The last `capacity` values pushed, kept sorted for percentile ranks and medians over
 * a sliding window: the engine's lookback windows and big_round flags, and event-log's
 * big_round median. The sorted values live in blocks of 128..255, so an insert or an
 * evict moves at most one block's worth and a rank walks the block list: cheap for the
 * largest window a DSL allows (20,000), where one flat sorted array would move tens of
 * kilobytes per round. Values must be finite (lamport totals, below 2^53, are exact).
 */
export class SortedWindow {
  private readonly ring: Float64Array;
  /** Where the next value goes in `ring`: the oldest value's place once the window is full. */
  private head = 0;
  private blocks: Float64Array[] = [];
  private sizes: number[] = [];
  size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.ring = new Float64Array(capacity);
  }

  /** Adds a value, evicting the oldest once the window is full. */
  push(x: number): void {
    if (this.size === this.capacity) this.remove(this.ring[this.head]!);
    this.ring[this.head] = x;
    this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
    this.insert(x);
  }

  /** Empties the window. */
  clear(): void {
    this.head = 0;
    this.size = 0;
    this.blocks = [];
    this.sizes = [];
  }

  /** The window's values, oldest first (pushed into an empty window, they restore it). */
  values(): number[] {
    const n = this.size;
    const start = this.head >= n ? this.head - n : this.head - n + this.capacity;
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.ring[(start + i) % this.capacity]!;
    return out;
  }

  /** Values in the window that are <= x. */
  countAtMost(x: number): number {
    let count = 0;
    for (let b = 0; b < this.blocks.length; b++) {
      const block = this.blocks[b]!;
      const n = this.sizes[b]!;
      if (block[n - 1]! <= x) count += n;
      else return count + upperBound(block, n, x);
    }
    return count;
  }

  /** Median; an even count averages the two middle values. NaN when empty. */
  median(): number {
    const n = this.size;
    if (n === 0) return Number.NaN;
    const mid = n >>> 1;
    return n % 2 === 1 ? this.at(mid) : (this.at(mid - 1) + this.at(mid)) / 2;
  }

  /** The k-th smallest value (0-based). */
  private at(k: number): number {
    let rest = k;
    for (let b = 0; b < this.blocks.length; b++) {
      const n = this.sizes[b]!;
      if (rest < n) return this.blocks[b]![rest]!;
      rest -= n;
    }
    return Number.NaN;
  }

  private insert(x: number): void {
    this.size++;
    const blocks = this.blocks;
    if (blocks.length === 0) {
      const block = new Float64Array(2 * BLOCK);
      block[0] = x;
      blocks.push(block);
      this.sizes.push(1);
      return;
    }
    // The first block ending above x, else the last block.
    let b = 0;
    while (b < blocks.length - 1 && blocks[b]![this.sizes[b]! - 1]! <= x) b++;
    const block = blocks[b]!;
    const n = this.sizes[b]!;
    const at = upperBound(block, n, x);
    block.copyWithin(at + 1, at, n);
    block[at] = x;
    if (n + 1 < 2 * BLOCK) {
      this.sizes[b] = n + 1;
      return;
    }
    const upper = new Float64Array(2 * BLOCK);
    upper.set(block.subarray(BLOCK, 2 * BLOCK));
    blocks.splice(b + 1, 0, upper);
    this.sizes.splice(b + 1, 0, BLOCK);
    this.sizes[b] = BLOCK;
  }

  /** Removes one occurrence of x, which must be in the window. */
  private remove(x: number): void {
    this.size--;
    const blocks = this.blocks;
    // x sits in the first block whose last value is >= x.
    let b = 0;
    while (blocks[b]![this.sizes[b]! - 1]! < x) b++;
    const block = blocks[b]!;
    const n = this.sizes[b]!;
    const at = lowerBound(block, n, x);
    block.copyWithin(at, at + 1, n);
    if (n > 1) this.sizes[b] = n - 1;
    else {
      blocks.splice(b, 1);
      this.sizes.splice(b, 1);
    }
  }
}
