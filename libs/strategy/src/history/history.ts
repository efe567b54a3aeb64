/** Squares on the board. */
export const SQUARES = 25;
const INITIAL_CAPACITY = 1024;

/**
 * The fields of a stored round the engine reads (a `Round` from the contracts is one).
 * Lamports are integers; `winningSquare` is null for a voided round.
 */
export interface RoundInput {
  readonly id: number;
  readonly deployed: ArrayLike<number>;
  readonly count: ArrayLike<number>;
  readonly winningSquare: number | null;
  readonly totalDeployed: number;
  readonly totalWinnings: number;
  /** Sum of `count` when absent (SPEC 3: older accounts lack it). */
  readonly totalMiners?: number;
}

function checkLamports(value: number, what: string, id: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`round ${id}: ${what} must be a non-negative safe integer, got ${value}`);
}

/**
 * Round history in columns (typed arrays), ids strictly increasing, voided rounds kept
 * with winning square -1. Appending grows the arrays by doubling, so a service can keep
 * one History and extend it round by round; the array fields are replaced when they
 * grow, so read them after appending, not before.
 */
export class History {
  /** Number of rounds stored. */
  length = 0;
  /** Non-voided rounds stored. */
  settledCount = 0;
  ids: Float64Array;
  /** 0..24, or -1 for a voided round. */
  winning: Int8Array;
  /** deployed[i * 25 + square] in lamports. */
  deployed: Float64Array;
  /** count[i * 25 + square]: miners on the square. */
  count: Uint32Array;
  totalDeployed: Float64Array;
  totalWinnings: Float64Array;
  totalMiners: Float64Array;
  /** Exact integer sum of the 25 deployed values (the payout rule's L uses it). */
  sumDeployed: Float64Array;
  /**
   * Deployed on the winning square (0 when voided): settlement reads this column instead
   * of a random place in `deployed`, so a replay streams through memory.
   */
  winnerDeployed: Float64Array;
  /** Non-voided rounds stored before index i: the round's ordinal among settled rounds. */
  ordinals: Float64Array;

  constructor(capacity = INITIAL_CAPACITY) {
    const c = Math.max(1, Math.floor(capacity));
    this.ids = new Float64Array(c);
    this.winning = new Int8Array(c);
    this.deployed = new Float64Array(c * SQUARES);
    this.count = new Uint32Array(c * SQUARES);
    this.totalDeployed = new Float64Array(c);
    this.totalWinnings = new Float64Array(c);
    this.totalMiners = new Float64Array(c);
    this.sumDeployed = new Float64Array(c);
    this.winnerDeployed = new Float64Array(c);
    this.ordinals = new Float64Array(c);
  }

  /** A history holding `rounds` (ascending ids). */
  static from(rounds: Iterable<RoundInput>, capacity?: number): History {
    const history = new History(capacity);
    for (const round of rounds) history.append(round);
    return history;
  }

  get capacity(): number {
    return this.ids.length;
  }

  get lastId(): number | null {
    return this.length === 0 ? null : this.ids[this.length - 1]!;
  }

  /** Appends one round; its id must be above every stored id. Throws RangeError on bad data. */
  append(round: RoundInput): void {
    const { id } = round;
    if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`round id must be a non-negative safe integer, got ${id}`);
    if (this.length > 0 && id <= this.ids[this.length - 1]!) {
      throw new RangeError(`round ${id} does not follow round ${this.ids[this.length - 1]!}: ids must increase`);
    }
    if (round.deployed.length !== SQUARES || round.count.length !== SQUARES) throw new RangeError(`round ${id}: deployed and count need ${SQUARES} entries`);
    const w = round.winningSquare;
    if (w !== null && !(Number.isInteger(w) && w >= 0 && w < SQUARES)) throw new RangeError(`round ${id}: winningSquare must be 0..24 or null, got ${w}`);
    checkLamports(round.totalDeployed, 'totalDeployed', id);
    checkLamports(round.totalWinnings, 'totalWinnings', id);
    if (this.length === this.capacity) this.grow();
    const i = this.length;
    const base = i * SQUARES;
    let sum = 0;
    let miners = 0;
    for (let s = 0; s < SQUARES; s++) {
      const d = round.deployed[s]!;
      const c = round.count[s]!;
      // Checked inline: a label built per square would cost more than the append itself.
      if (!Number.isSafeInteger(d) || d < 0) checkLamports(d, `deployed[${s}]`, id);
      if (!Number.isInteger(c) || c < 0 || c > 0xffff_ffff) throw new RangeError(`round ${id}: count[${s}] must be an integer in 0..2^32-1, got ${c}`);
      this.deployed[base + s] = d;
      this.count[base + s] = c;
      sum += d;
      miners += c;
    }
    if (!Number.isSafeInteger(sum)) throw new RangeError(`round ${id}: deployed sums past 2^53`);
    const totalMiners = round.totalMiners ?? miners;
    checkLamports(totalMiners, 'totalMiners', id);
    this.ids[i] = id;
    this.winning[i] = w ?? -1;
    this.totalDeployed[i] = round.totalDeployed;
    this.totalWinnings[i] = round.totalWinnings;
    this.totalMiners[i] = totalMiners;
    this.sumDeployed[i] = sum;
    this.winnerDeployed[i] = w === null ? 0 : round.deployed[w]!;
    this.ordinals[i] = this.settledCount;
    if (w !== null) this.settledCount++;
    this.length = i + 1;
  }

  /** Appends rounds in order (see `append`). */
  appendMany(rounds: Iterable<RoundInput>): void {
    for (const round of rounds) this.append(round);
  }

  /** Index of the first stored round with id >= `id` (`length` when none). */
  lowerBound(id: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the round with this id, or -1. */
  indexOf(id: number): number {
    const i = this.lowerBound(id);
    return i < this.length && this.ids[i] === id ? i : -1;
  }

  /** The round at index i as a plain object (for tests and diagnostics; not for hot loops). */
  roundAt(i: number): Required<RoundInput> & { deployed: number[]; count: number[] } {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`index ${i} outside 0..${this.length - 1}`);
    const w = this.winning[i]!;
    return {
      id: this.ids[i]!,
      deployed: Array.from(this.deployed.subarray(i * SQUARES, (i + 1) * SQUARES)),
      count: Array.from(this.count.subarray(i * SQUARES, (i + 1) * SQUARES)),
      winningSquare: w < 0 ? null : w,
      totalDeployed: this.totalDeployed[i]!,
      totalWinnings: this.totalWinnings[i]!,
      totalMiners: this.totalMiners[i]!,
    };
  }

  private grow(): void {
    const c = this.capacity * 2;
    const grown = <T extends Float64Array | Int8Array | Uint32Array>(old: T, make: (n: number) => T, width = 1): T => {
      const next = make(c * width);
      next.set(old);
      return next;
    };
    this.ids = grown(this.ids, (n) => new Float64Array(n));
    this.winning = grown(this.winning, (n) => new Int8Array(n));
    this.deployed = grown(this.deployed, (n) => new Float64Array(n), SQUARES);
    this.count = grown(this.count, (n) => new Uint32Array(n), SQUARES);
    this.totalDeployed = grown(this.totalDeployed, (n) => new Float64Array(n));
    this.totalWinnings = grown(this.totalWinnings, (n) => new Float64Array(n));
    this.totalMiners = grown(this.totalMiners, (n) => new Float64Array(n));
    this.sumDeployed = grown(this.sumDeployed, (n) => new Float64Array(n));
    this.winnerDeployed = grown(this.winnerDeployed, (n) => new Float64Array(n));
    this.ordinals = grown(this.ordinals, (n) => new Float64Array(n));
  }
}
