import { SQUARES } from '../history/history';

/**
 * Room for the square index below a key: composite = key * 32 + (31 - square) is unique
 * per square and orders ties by lower square index, so one comparison ranks two squares.
 * Exact while |key| < 2^47.
 */
const INDEX_SLOTS = 32;

/**
 * The 25 squares ordered by a numeric key, highest first, ties by lower square index.
 * A key change moves one square by insertion (a few steps when keys change by one
 * round's worth), so a ranking is kept up to date without sorting every round.
 */
export class RankedSquares {
  /** Composite keys (see INDEX_SLOTS). */
  private readonly keys = new Float64Array(SQUARES);
  /** order[rank] = square. */
  readonly order = new Int8Array(SQUARES);
  private readonly rank = new Int8Array(SQUARES);

  constructor() {
    for (let s = 0; s < SQUARES; s++) {
      this.order[s] = s;
      this.rank[s] = s;
      this.keys[s] = INDEX_SLOTS - 1 - s;
    }
  }

  /** Sets every key at once and re-sorts (used when state is rebuilt). */
  reset(keys: ArrayLike<number>): void {
    const squares = Array.from({ length: SQUARES }, (_, s) => s);
    for (let s = 0; s < SQUARES; s++) this.keys[s] = keys[s]! * INDEX_SLOTS + (INDEX_SLOTS - 1 - s);
    squares.sort((a, b) => this.keys[b]! - this.keys[a]!);
    for (let r = 0; r < SQUARES; r++) {
      this.order[r] = squares[r]!;
      this.rank[squares[r]!] = r;
    }
  }

  /** Changes one square's key and moves it to its place. */
  set(square: number, key: number): void {
    const keys = this.keys;
    const order = this.order;
    const rank = this.rank;
    const k = key * INDEX_SLOTS + (INDEX_SLOTS - 1 - square);
    keys[square] = k;
    let r = rank[square]!;
    // Towards the front while it outranks its predecessor...
    while (r > 0) {
      const p = order[r - 1]!;
      if (keys[p]! >= k) break;
      order[r] = p;
      rank[p] = r;
      r--;
    }
    // ...or towards the back while its successor outranks it.
    while (r < SQUARES - 1) {
      const n = order[r + 1]!;
      if (keys[n]! <= k) break;
      order[r] = n;
      rank[n] = r;
      r++;
    }
    order[r] = square;
    rank[square] = r;
  }
}
