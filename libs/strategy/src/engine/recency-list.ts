import { SQUARES } from '../history/history';

/** Sentinel node of the circular list: its next is the first square, its prev the last. */
const HEAD = SQUARES;

/**
 * The 25 squares from least to most recently won, never-won squares first in index
 * order: exactly "longest current drought first, ties by lower index". A win moves the
 * square to the back in O(1), so cold, drought and recent_winners read their squares
 * straight off the list.
 */
export class RecencyList {
  private readonly next = new Int8Array(SQUARES + 1);
  private readonly prev = new Int8Array(SQUARES + 1);

  constructor() {
    this.rebuild(new Float64Array(SQUARES).fill(-1));
  }

  /** Orders the squares by last win ordinal (ascending; -1 = never, ties by index). */
  rebuild(lastWin: ArrayLike<number>): void {
    const squares = Array.from({ length: SQUARES }, (_, s) => s);
    squares.sort((a, b) => lastWin[a]! - lastWin[b]! || a - b);
    let before = HEAD;
    for (const s of squares) {
      this.next[before] = s;
      this.prev[s] = before;
      before = s;
    }
    this.next[before] = HEAD;
    this.prev[HEAD] = before;
  }

  /** The square just won: now the most recent. */
  touch(square: number): void {
    const next = this.next;
    const prev = this.prev;
    const last = prev[HEAD]!;
    if (last === square) return;
    const p = prev[square]!;
    const n = next[square]!;
    next[p] = n;
    prev[n] = p;
    next[last] = square;
    prev[square] = last;
    next[square] = HEAD;
    prev[HEAD] = square;
  }

  /** Least recent (longest drought) square, or the one after `square` in that order; 25 at the end. */
  first(): number {
    return this.next[HEAD]!;
  }

  after(square: number): number {
    return this.next[square]!;
  }

  /** Most recent square, or the one before `square`; 25 at the start. */
  last(): number {
    return this.prev[HEAD]!;
  }

  before(square: number): number {
    return this.prev[square]!;
  }
}
