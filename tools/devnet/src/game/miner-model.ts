import type { Prng } from './prng';

/** One miner's deploy: equal lamports on each listed square, at a slot offset into the round. */
export interface Deploy {
  readonly slotOffset: number;
  readonly miner: number;
  readonly squares: readonly number[];
  readonly lamportsPerSquare: number;
}

const SQUARES = 25;
const LAMPORTS_PER_SOL = 1_000_000_000;
const MINER_POOL = 3000;
const ALL_SQUARES: readonly number[] = Array.from({ length: SQUARES }, (_, s) => s);
/** Median total stake of an ordinary round, in SOL. */
const MEDIAN_ROUND_SOL = 15;
const ROUND_SIGMA = 0.45;
const WHALE_PROBABILITY = 0.03;
/** How fast crowd preferences wander from round to round (log-weight random walk). */
const PREFERENCE_DRIFT = 0.05;
const PREFERENCE_PULL = 0.02;

/**
 * A seeded model of the crowd: totals per round log-normal around ~15 SOL with
 * occasional whale rounds of 5-20x, several hundred deploys per round arriving over
 * the active slots (more towards the end, as players wait for information), per-square
 * preferences that drift slowly, and a miner pool whose members come back.
 */
export class MinerModel {
  private readonly logWeights = new Array<number>(SQUARES).fill(0);

  constructor(private readonly random: Prng) {
    for (let s = 0; s < SQUARES; s++) this.logWeights[s] = random.normal() * 0.3;
  }

  /** The deploys of the next round, sorted by slot offset within [0, roundSlots). */
  nextRound(roundSlots: number): Deploy[] {
    this.drift();
    const r = this.random;
    let totalSol = MEDIAN_ROUND_SOL * Math.exp(r.normal() * ROUND_SIGMA);
    if (r.next() < WHALE_PROBABILITY) totalSol *= 5 + r.next() * 15;
    const entries = 200 + r.int(400);
    // Cumulative preference weights: a square is picked by one binary search.
    const cumulative = new Float64Array(SQUARES);
    let acc = 0;
    for (let s = 0; s < SQUARES; s++) cumulative[s] = acc += Math.exp(this.logWeights[s]!);
    // Stakes per entry: heavy-tailed shares of the round total.
    const shares = Array.from({ length: entries }, () => Math.exp(r.normal() * 1.1));
    const shareSum = shares.reduce((a, b) => a + b, 0);
    const deploys: Deploy[] = [];
    for (let i = 0; i < entries; i++) {
      const lamports = Math.max(10_000, Math.floor((totalSol * LAMPORTS_PER_SOL * shares[i]!) / shareSum));
      const squares = this.pickSquares(cumulative);
      const lamportsPerSquare = Math.max(1, Math.floor(lamports / squares.length));
      // sqrt of a uniform skews arrivals towards the end of the round.
      const slotOffset = Math.min(roundSlots - 1, Math.floor(Math.sqrt(r.next()) * roundSlots));
      deploys.push({ slotOffset, miner: r.int(MINER_POOL), squares, lamportsPerSquare });
    }
    return deploys.sort((a, b) => a.slotOffset - b.slotOffset);
  }

  /** The drifting per-square preferences (the model's only state besides its Prng). */
  weights(): number[] {
    return [...this.logWeights];
  }

  setWeights(weights: readonly number[]): void {
    if (weights.length !== SQUARES) throw new Error(`expected ${SQUARES} weights, got ${weights.length}`);
    weights.forEach((w, s) => (this.logWeights[s] = w));
  }

  private drift(): void {
    for (let s = 0; s < SQUARES; s++) {
      const w = this.logWeights[s]!;
      this.logWeights[s] = w - PREFERENCE_PULL * w + PREFERENCE_DRIFT * this.random.normal();
    }
  }

  /** Most miners pick one to five squares by preference; a few cover the whole board. */
  private pickSquares(cumulative: Float64Array): readonly number[] {
    const r = this.random;
    const roll = r.next();
    if (roll < 0.05) return ALL_SQUARES;
    const k = roll < 0.55 ? 1 : 1 + r.int(5);
    const total = cumulative[SQUARES - 1]!;
    let mask = 0;
    let picked = 0;
    while (picked < k) {
      const x = r.next() * total;
      let lo = 0;
      let hi = SQUARES - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cumulative[mid]! > x) hi = mid;
        else lo = mid + 1;
      }
      if ((mask & (1 << lo)) === 0) {
        mask |= 1 << lo;
        picked++;
      }
    }
    const out: number[] = [];
    for (let s = 0; s < SQUARES; s++) if (mask & (1 << s)) out.push(s);
    return out;
  }
}
