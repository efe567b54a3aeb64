/**
 * Median of the last `capacity` values pushed, updated in O(capacity) memory moves per
 * push and answered in O(1). For the event log's window (1,000 round totals) a sorted
 * Float64Array kept in order by binary search and `copyWithin` beats heap-based
 * structures: one push moves at most 8 KB with memmove and allocates nothing.
 * Values must be finite; lamport totals (integers below 2^53) are held exactly.
 */
export class RollingMedian {
  /** Values in push order, as a ring: the oldest is at `head` once the ring is full. */
  private readonly ring: Float64Array;
  /** The same values, ascending, in `sorted[0..size)`. */
  private readonly sorted: Float64Array;
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.ring = new Float64Array(capacity);
    this.sorted = new Float64Array(capacity);
  }

  /** How many values the window holds (at most `capacity`). */
  get size(): number {
    return this.count;
  }

  /** Adds `value`, evicting the oldest value once the window is full. */
  push(value: number): void {
    if (!Number.isFinite(value)) throw new RangeError(`value must be finite, got ${value}`);
    let n = this.count;
    if (n === this.capacity) {
      const oldest = this.ring[this.head]!;
      this.ring[this.head] = value;
      this.head = (this.head + 1) % this.capacity;
      // Any copy of an equal value is the same number, so the first one found will do.
      const at = this.bound(oldest, n, false);
      this.sorted.copyWithin(at, at + 1, n);
      n--;
    } else {
      this.ring[(this.head + n) % this.capacity] = value;
    }
    const at = this.bound(value, n, true);
    this.sorted.copyWithin(at + 1, at, n);
    this.sorted[at] = value;
    this.count = n + 1;
  }

  /** The median (the mean of the two middle values for an even count); null when empty. */
  median(): number | null {
    const n = this.count;
    if (n === 0) return null;
    const mid = n >> 1;
    if (n % 2 === 1) return this.sorted[mid]!;
    return (this.sorted[mid - 1]! + this.sorted[mid]!) / 2;
  }

  /** The window's values, oldest first (pushing them into an empty window restores it). */
  values(): number[] {
    const out = new Array<number>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.ring[(this.head + i) % this.capacity]!;
    return out;
  }

  /** First index in sorted[0..n) whose value is >= `value` (or > when `after`). */
  private bound(value: number, n: number, after: boolean): number {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.sorted[mid]!;
      if (v < value || (after && v === value)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
