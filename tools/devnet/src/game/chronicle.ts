/**
 * Every round the chain has played, in a few numbers each: the slot it started, the
 * motherlode pool before it, and every 32nd round the crowd's preferences. From these
 * and the seed any round is derived again (derive-round.ts) when someone asks for its
 * transactions; a few recently derived rounds are cached.
 */
import { type DerivedRound, type RoundContext, deriveRound, roundStreams } from './derive-round';
import { driftWeights, initialWeights } from './miner-model';
import { Prng } from './prng';

/** Rounds between two saved copies of the preferences (at most this many drifts replayed per derivation). */
const CHECKPOINT_EVERY = 32;
/** Derived rounds kept: a client paging through history or fetching a round's transactions hits them. */
const CACHE_ROUNDS = 24;

export class Chronicle {
  private readonly starts: number[] = [];
  private readonly pools: number[] = [];
  private readonly checkpoints: Float64Array[] = [];
  private weights: Float64Array;
  private readonly cache = new Map<number, DerivedRound>();

  /**
   * @param baseSlot the slot of the reset before the first round (the first round's
   *   first deploy comes a few slots after it)
   */
  constructor(
    readonly ctx: RoundContext,
    readonly baseSlot: number,
    readonly firstId = 1,
  ) {
    this.weights = initialWeights(new Prng(ctx.seed));
  }

  /** The last round appended (firstId - 1 when none). */
  get lastId(): number {
    return this.firstId + this.starts.length - 1;
  }

  has(id: number): boolean {
    return id >= this.firstId && id <= this.lastId;
  }

  /** Plays the next round: drifts the preferences and derives it. */
  append(poolBefore: number): DerivedRound {
    const id = this.lastId + 1;
    const weights = Float64Array.from(this.weights);
    driftWeights(weights, roundStreams(this.ctx.seed, id).drift);
    this.weights = weights;
    if ((id - this.firstId) % CHECKPOINT_EVERY === 0) this.checkpoints.push(weights);
    const round = deriveRound(this.ctx, id, weights, poolBefore, this.previousReset(id));
    this.starts.push(round.startSlot);
    this.pools.push(poolBefore);
    this.remember(round);
    return round;
  }

  /** Round `id` (appended before), derived again unless cached. */
  derive(id: number): DerivedRound {
    if (!this.has(id)) throw new RangeError(`round ${id} has not been played`);
    const cached = this.cache.get(id);
    if (cached !== undefined) {
      // Map order is recency order: move it to the end.
      this.cache.delete(id);
      this.cache.set(id, cached);
      return cached;
    }
    const index = id - this.firstId;
    const checkpoint = Math.floor(index / CHECKPOINT_EVERY);
    const weights = Float64Array.from(this.checkpoints[checkpoint]!);
    for (let j = this.firstId + checkpoint * CHECKPOINT_EVERY + 1; j <= id; j++) driftWeights(weights, roundStreams(this.ctx.seed, j).drift);
    const round = deriveRound(this.ctx, id, weights, this.pools[index]!, this.previousReset(id));
    this.remember(round);
    return round;
  }

  startSlot(id: number): number {
    return this.starts[id - this.firstId]!;
  }

  endSlot(id: number): number {
    return this.startSlot(id) + this.ctx.roundSlots;
  }

  resetSlot(id: number): number {
    return this.endSlot(id) + this.ctx.intermissionSlots;
  }

  /**
   * The last round started at or before `slot` (firstId - 1 when none): its transactions
   * and those of earlier rounds are the ones at or before that slot.
   */
  roundAt(slot: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= slot) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return this.firstId + found;
  }

  private previousReset(id: number): number {
    return id === this.firstId ? this.baseSlot : this.resetSlot(id - 1);
  }

  private remember(round: DerivedRound): void {
    this.cache.set(round.id, round);
    if (this.cache.size > CACHE_ROUNDS) this.cache.delete(this.cache.keys().next().value!);
  }
}
