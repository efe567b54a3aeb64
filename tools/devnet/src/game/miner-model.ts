import type { Prng } from './prng';

/**
 * The Deploy instructions of a round, in the order they land (by slot offset; a miner's
 * top-up after its deploy): instruction i puts `amount[i]` lamports on each square of
 * `mask[i]` (bit i = square i). The program skips squares the miner already holds this
 * round, so what lands may be less than the mask. Columns of typed arrays: a round has
 * hundreds of deploys and genesis plays thousands of rounds.
 */
export interface Plan {
  readonly length: number;
  readonly slotOffset: Uint16Array;
  readonly miner: Uint16Array;
  readonly mask: Int32Array;
  readonly amount: Float64Array;
}

const SQUARES = 25;
/** Distinct miner wallets the model draws from (they come back round after round). */
export const MINER_POOL = 3000;
const LAMPORTS_PER_SOL = 1_000_000_000;
const ALL_SQUARES_MASK = (1 << SQUARES) - 1;
/** Median total stake of an ordinary round, in SOL. */
const MEDIAN_ROUND_SOL = 15;
const ROUND_SIGMA = 0.45;
const WHALE_PROBABILITY = 0.03;
/** How fast crowd preferences wander from round to round (log-weight random walk). */
const PREFERENCE_DRIFT = 0.05;
const PREFERENCE_PULL = 0.02;
/**
 * Share of entries followed by a second deploy of the same miner later in the round, on
 * its squares and maybe more: the program then skips the squares already held, which is
 * what tells the requested mask from the deployed one in old DeployEvents.
 */
const TOP_UP_PROBABILITY = 0.04;

/*
 * A seeded model of the crowd: totals per round log-normal around ~15 SOL with
 * occasional whale rounds of 5-20x, several hundred deploys per round arriving over the
 * active slots (more towards the end, as players wait for information), per-square
 * preferences that drift slowly, and a miner pool whose members come back. Pure
 * functions of their Prng, so any round can be planned again from its own stream.
 */

/** Deploys of a round on average: uniform from half to one and a half times it (mainnet: several hundred). */
export const DEFAULT_DEPLOYS = 400;

/** The crowd's per-square log-preferences before the first round. */
export function initialWeights(random: Prng): Float64Array {
  const weights = new Float64Array(SQUARES);
  for (let s = 0; s < SQUARES; s++) weights[s] = random.normal() * 0.3;
  return weights;
}

/** One round's drift of the preferences, in place (a mean-reverting random walk). */
export function driftWeights(weights: Float64Array, random: Prng): void {
  for (let s = 0; s < SQUARES; s++) {
    const w = weights[s]!;
    weights[s] = w - PREFERENCE_PULL * w + PREFERENCE_DRIFT * random.normal();
  }
}

/** The deploys of a round, sorted by slot offset within [0, roundSlots) (stable: a miner's top-up follows its deploy). */
export function planRound(weights: Float64Array, random: Prng, roundSlots: number, meanDeploys = DEFAULT_DEPLOYS): Plan {
  const r = random;
  let totalSol = MEDIAN_ROUND_SOL * Math.exp(r.normal() * ROUND_SIGMA);
  if (r.next() < WHALE_PROBABILITY) totalSol *= 5 + r.next() * 15;
  const entries = Math.floor(meanDeploys / 2) + r.int(meanDeploys);
  // Cumulative preference weights: a square is picked by one binary search.
  const cumulative = new Float64Array(SQUARES);
  let acc = 0;
  for (let s = 0; s < SQUARES; s++) cumulative[s] = acc += Math.exp(weights[s]!);
  // Stakes per entry: heavy-tailed shares of the round total.
  const shares = new Float64Array(entries);
  let shareSum = 0;
  for (let i = 0; i < entries; i++) shareSum += shares[i] = Math.exp(r.normal() * 1.1);
  // Generated in order: first deploys, then top-ups, so a stable sort keeps each top-up after its deploy.
  const cap = 2 * entries;
  const offset = new Uint16Array(cap);
  const miner = new Uint16Array(cap);
  const mask = new Int32Array(cap);
  const amount = new Float64Array(cap);
  let n = entries;
  let topUps = 0;
  const topUpOf = new Int32Array(entries);
  for (let i = 0; i < entries; i++) {
    const lamports = Math.max(10_000, Math.floor((totalSol * LAMPORTS_PER_SOL * shares[i]!) / shareSum));
    mask[i] = pickSquares(r, cumulative);
    amount[i] = Math.max(1, Math.floor(lamports / popcount(mask[i]!)));
    // sqrt of a uniform skews arrivals towards the end of the round.
    offset[i] = Math.min(roundSlots - 1, Math.floor(Math.sqrt(r.next()) * roundSlots));
    miner[i] = r.int(MINER_POOL);
    if (r.next() < TOP_UP_PROBABILITY) topUpOf[topUps++] = i;
  }
  for (let t = 0; t < topUps; t++) {
    const i = topUpOf[t]!;
    offset[n] = offset[i]! + r.int(roundSlots - offset[i]!);
    miner[n] = miner[i]!;
    mask[n] = mask[i]! | pickSquares(r, cumulative);
    amount[n] = Math.max(1, Math.floor(amount[i]! / 2));
    n++;
  }
  // Counting sort by slot offset, stable.
  const starts = new Uint32Array(roundSlots + 1);
  for (let i = 0; i < n; i++) starts[offset[i]! + 1]!++;
  for (let s = 1; s <= roundSlots; s++) starts[s]! += starts[s - 1]!;
  const plan = { length: n, slotOffset: new Uint16Array(n), miner: new Uint16Array(n), mask: new Int32Array(n), amount: new Float64Array(n) };
  for (let i = 0; i < n; i++) {
    const at = starts[offset[i]!]!++;
    plan.slotOffset[at] = offset[i]!;
    plan.miner[at] = miner[i]!;
    plan.mask[at] = mask[i]!;
    plan.amount[at] = amount[i]!;
  }
  return plan;
}

/** Most miners pick one to five squares by preference; a few cover the whole board. */
function pickSquares(r: Prng, cumulative: Float64Array): number {
  const roll = r.next();
  if (roll < 0.05) return ALL_SQUARES_MASK;
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
  return mask;
}

function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}
