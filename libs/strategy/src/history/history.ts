import { reverseBits32 } from '../engine/exact';
import { SPEC_BIG_ROUND_RULE, type BigRoundRule } from './big-rounds';

/** Squares on the board. */
export const SQUARES = 25;
/** How a round paid (SPEC 3), as stored in `History.rule`. */
export const PARIMUTUEL = 0;
export const RETURNS = 1;
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
  /** The rule that settled the round (SPEC 3); absent means `parimutuel`, as every v3 round. */
  readonly payoutRule?: 'parimutuel' | 'returns';
  /** `returns`: the round's ORE reward R (base units, 1 ORE = 1e11); null or absent = 0. */
  readonly oreReward?: number | null;
  /** `returns`: the motherlode M paid on the winning square this round (ORE base units); absent = 0. */
  readonly motherlode?: number;
  /** `returns`: the ORE reward was split pro rata on the winning square (else drawn). */
  readonly split?: boolean | null;
  /**
   * `returns`: the board's production cost at settlement, lamports per whole ORE, which
   * values the ORE a strategy earns; null or absent values it at 0.
   */
  readonly productionCost?: number | null;
  /**
   * The slot hash (64 hex characters, or its 32 bytes): a settled, unsplit `returns`
   * round needs it, since its top miner is drawn from the bit-reversed rng.
   */
  readonly slotHash?: string | Uint8Array;
}

/** The u64 rng of a slot hash (four LE u64 xored), bit-reversed, as [high u32, low u32]. */
function reversedRng(slotHash: string | Uint8Array, id: number): [number, number] {
  let lo = 0;
  let hi = 0;
  if (typeof slotHash === 'string') {
    if (!/^[0-9a-fA-F]{64}$/.test(slotHash)) throw new RangeError(`round ${id}: slotHash must be 64 hex characters`);
    for (let w = 0; w < 4; w++) {
      lo ^= leU32(slotHash, 16 * w);
      hi ^= leU32(slotHash, 16 * w + 8);
    }
  } else {
    if (slotHash.length !== 32) throw new RangeError(`round ${id}: slotHash must be 32 bytes`);
    for (let w = 0; w < 4; w++) {
      const b = 8 * w;
      lo ^= slotHash[b]! | (slotHash[b + 1]! << 8) | (slotHash[b + 2]! << 16) | (slotHash[b + 3]! << 24);
      hi ^= slotHash[b + 4]! | (slotHash[b + 5]! << 8) | (slotHash[b + 6]! << 16) | (slotHash[b + 7]! << 24);
    }
  }
  // Reversing 64 bits swaps the halves and reverses each.
  return [reverseBits32(lo), reverseBits32(hi)];
}

/** The little-endian u32 whose 4 bytes start at hex character `at`. */
function leU32(hex: string, at: number): number {
  let v = 0;
  for (let b = 3; b >= 0; b--) v = v * 256 + parseInt(hex.substr(at + 2 * b, 2), 16);
  return v | 0;
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
  /** The payout rule: PARIMUTUEL (0) or RETURNS (1). The columns below are 0 for parimutuel rounds. */
  rule: Uint8Array;
  /** `returns`: the ORE reward R (base units). */
  oreReward: Float64Array;
  /** `returns`: the motherlode M paid this round (ORE base units). */
  motherlode: Float64Array;
  /** `returns`: 1 when the ORE reward was split pro rata. */
  split: Uint8Array;
  /** `returns`: lamports per whole ORE at settlement (0 when unknown: ORE valued at 0). */
  productionCost: Float64Array;
  /** `returns`: reverse_bits(rng) as two u32 halves, the top-miner draw's sample (SPEC 7.7). */
  drawHi: Uint32Array;
  drawLo: Uint32Array;
  /** The big_round rule of the `rounds_since_big_round` filter (the service's EVENT_BIG_ROUND_* settings). */
  bigRoundRule: BigRoundRule = SPEC_BIG_ROUND_RULE;

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
    this.rule = new Uint8Array(c);
    this.oreReward = new Float64Array(c);
    this.motherlode = new Float64Array(c);
    this.split = new Uint8Array(c);
    this.productionCost = new Float64Array(c);
    this.drawHi = new Uint32Array(c);
    this.drawLo = new Uint32Array(c);
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
    const returns = round.payoutRule === 'returns';
    if (!returns && round.payoutRule !== undefined && round.payoutRule !== 'parimutuel') throw new RangeError(`round ${id}: unknown payoutRule ${String(round.payoutRule)}`);
    let ore = 0;
    let motherlode = 0;
    let cost = 0;
    let split = 0;
    let drawHi = 0;
    let drawLo = 0;
    if (returns) {
      ore = round.oreReward ?? 0;
      motherlode = round.motherlode ?? 0;
      cost = round.productionCost ?? 0;
      checkLamports(ore, 'oreReward', id);
      checkLamports(motherlode, 'motherlode', id);
      checkLamports(cost, 'productionCost', id);
      split = round.split === true ? 1 : 0;
      if (w !== null && split === 0 && ore > 0) {
        if (round.slotHash === undefined) throw new RangeError(`round ${id}: a returns round whose ORE is drawn needs its slotHash`);
        [drawHi, drawLo] = reversedRng(round.slotHash, id);
      }
    }
    this.ids[i] = id;
    this.winning[i] = w ?? -1;
    this.totalDeployed[i] = round.totalDeployed;
    this.totalWinnings[i] = round.totalWinnings;
    this.totalMiners[i] = totalMiners;
    this.sumDeployed[i] = sum;
    this.winnerDeployed[i] = w === null ? 0 : round.deployed[w]!;
    this.ordinals[i] = this.settledCount;
    this.rule[i] = returns ? RETURNS : PARIMUTUEL;
    this.oreReward[i] = ore;
    this.motherlode[i] = motherlode;
    this.split[i] = split;
    this.productionCost[i] = cost;
    this.drawHi[i] = drawHi;
    this.drawLo[i] = drawLo;
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

  /**
   * The round at index i as a plain object (for tests and diagnostics; not for hot
   * loops); the `returns` fields only on a returns round, the draw as `drawRng` (the
   * bit-reversed rng, which is what the slot hash is kept for).
   */
  roundAt(i: number): RoundInput & { deployed: number[]; count: number[]; totalMiners: number; drawRng?: bigint } {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`index ${i} outside 0..${this.length - 1}`);
    const w = this.winning[i]!;
    const round = {
      id: this.ids[i]!,
      deployed: Array.from(this.deployed.subarray(i * SQUARES, (i + 1) * SQUARES)),
      count: Array.from(this.count.subarray(i * SQUARES, (i + 1) * SQUARES)),
      winningSquare: w < 0 ? null : w,
      totalDeployed: this.totalDeployed[i]!,
      totalWinnings: this.totalWinnings[i]!,
      totalMiners: this.totalMiners[i]!,
    };
    if (this.rule[i] !== RETURNS) return round;
    return {
      ...round,
      payoutRule: 'returns',
      oreReward: this.oreReward[i]!,
      motherlode: this.motherlode[i]!,
      split: this.split[i] === 1,
      productionCost: this.productionCost[i]!,
      drawRng: (BigInt(this.drawHi[i]!) << 32n) | BigInt(this.drawLo[i]!),
    };
  }

  private grow(): void {
    const c = this.capacity * 2;
    const grown = <T extends Float64Array | Int8Array | Uint8Array | Uint32Array>(old: T, make: (n: number) => T, width = 1): T => {
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
    this.rule = grown(this.rule, (n) => new Uint8Array(n));
    this.oreReward = grown(this.oreReward, (n) => new Float64Array(n));
    this.motherlode = grown(this.motherlode, (n) => new Float64Array(n));
    this.split = grown(this.split, (n) => new Uint8Array(n));
    this.productionCost = grown(this.productionCost, (n) => new Float64Array(n));
    this.drawHi = grown(this.drawHi, (n) => new Uint32Array(n));
    this.drawLo = grown(this.drawLo, (n) => new Uint32Array(n));
  }
}
