import type { Prng } from './prng';
import { MEAN_ROUND_SOL, MIN_STAKE_LAMPORTS, MOOD_SIGMA, STAKE_NOISE_SIGMA, TIMING, type Population } from './population';

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
const LAMPORTS_PER_SOL = 1_000_000_000;
const ALL_SQUARES_MASK = (1 << SQUARES) - 1;
/** Share of rounds with a whale bet: one whale puts down 4-19 times an ordinary round on its own. */
const WHALE_ROUND_PROBABILITY = 0.03;
/** How fast crowd preferences wander from round to round (log-weight random walk). */
const PREFERENCE_DRIFT = 0.05;
const PREFERENCE_PULL = 0.02;
/** Share of a wallet's deploys that take its usual number of squares (the rest: one to five). */
const HABIT_KEPT = 0.85;

/*
 * A seeded model of the crowd's rounds, from the wallets of the population
 * (population.ts): each wallet plays a round with its own chance, swung by the round's
 * activity (from half to one and a half times it: busy and quiet rounds), deploys its own
 * stake times the round's mood on its usual squares (picked by the crowd's per-square
 * preferences, which drift slowly), at its own point of the round (more towards the end,
 * as players wait for information), sometimes twice; now and then a whale bets several
 * ordinary rounds at once. Pure functions of their Prng and the population, so any round
 * can be planned again from its own stream.
 */

/** Deploys of a round on average (mainnet: several hundred). */
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

/** Wallets playing the round being planned (scratch: planRound allocates only its plan). */
let players = new Uint32Array(1024);

/**
 * The manual deploys of a round, sorted by slot offset within [0, roundSlots) (stable: a
 * miner's top-up follows its deploy). Automated wallets are in it too: the round's
 * derivation drops their deploys while their automation is open.
 */
export function planRound(population: Population, weights: Float64Array, random: Prng, roundSlots: number): Plan {
  const r = random;
  const swing = 0.5 + r.next();
  const mood = Math.exp(MOOD_SIGMA * r.normal());
  const whaleBet = r.next() < WHALE_ROUND_PROBABILITY ? 4 + 15 * r.next() : 0;
  const entries = drawPlayers(population, swing, r);
  const squaresTable = aliasTable(weights);
  // Generated in order: first deploys, then top-ups, so a stable sort keeps each top-up after its deploy.
  const cap = 2 * entries;
  const offset = new Uint16Array(cap);
  const miner = new Uint16Array(cap);
  const mask = new Int32Array(cap);
  const amount = new Float64Array(cap);
  let n = entries;
  let topUps = 0;
  const topUpOf = new Int32Array(entries);
  let biggest = -1;
  let biggestLamports = 0;
  const { stake, habit, timing, topUp } = population;
  // Local copies: a hot loop reading an imported binding pays a getter per access once transpiled to CommonJS.
  const minStake = MIN_STAKE_LAMPORTS;
  const noiseSigma = STAKE_NOISE_SIGMA;
  const late = TIMING.late;
  const uniform = TIMING.uniform;
  for (let i = 0; i < entries; i++) {
    const m = players[i]!;
    const lamports = Math.max(minStake, Math.floor(stake[m]! * mood * Math.exp(noiseSigma * r.normal())));
    const squares = r.next() < HABIT_KEPT ? habit[m]! : 1 + r.int(5);
    mask[i] = squares === SQUARES ? ALL_SQUARES_MASK : pickSquares(r, squaresTable, squares);
    amount[i] = Math.max(1, Math.floor(lamports / squares));
    // sqrt and cbrt of a uniform skew arrivals towards the end of the round (densities 2x and 3x^2).
    const u = r.next();
    const t = timing[m]!;
    offset[i] = Math.min(roundSlots - 1, Math.floor((t === uniform ? u : t === late ? Math.sqrt(u) : Math.cbrt(u)) * roundSlots));
    miner[i] = m;
    if (r.next() < topUp[m]!) topUpOf[topUps++] = i;
    if (lamports > biggestLamports) [biggest, biggestLamports] = [i, lamports];
  }
  if (whaleBet > 0 && biggest >= 0) amount[biggest]! += Math.floor((whaleBet * mood * MEAN_ROUND_SOL * LAMPORTS_PER_SOL) / popcount(mask[biggest]!));
  for (let t = 0; t < topUps; t++) {
    const i = topUpOf[t]!;
    offset[n] = offset[i]! + r.int(roundSlots - offset[i]!);
    miner[n] = miner[i]!;
    mask[n] = mask[i]! | pickSquares(r, squaresTable, 1 + r.int(3));
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

/**
 * Puts the round's players in `players` and returns how many: each wallet plays with
 * chance `min(1, swing * rate)`, independently. Wallets are walked by classes of similar
 * rate, jumping over the ones that do not play (geometric gaps at the class's highest
 * chance, each landing kept at its own): the cost follows the players, not the pool.
 */
function drawPlayers(population: Population, swing: number, r: Prng): number {
  const { rate, byRate, classStart } = population;
  if (players.length < population.size) players = new Uint32Array(population.size);
  let count = 0;
  for (let c = 0; c + 1 < classStart.length; c++) {
    const start = classStart[c]!;
    const end = classStart[c + 1]!;
    const top = swing * rate[byRate[start]!]!;
    if (top <= 0) break;
    if (top >= 1) {
      for (let j = start; j < end; j++) if (r.next() < swing * rate[byRate[j]!]!) players[count++] = byRate[j]!;
      continue;
    }
    const logMiss = Math.log(1 - top);
    for (let j = start - 1; ; ) {
      j += 1 + Math.floor(Math.log(1 - r.next()) / logMiss);
      if (j >= end) break;
      if (r.next() * top < swing * rate[byRate[j]!]!) players[count++] = byRate[j]!;
    }
  }
  return count;
}

/**
 * The crowd's preferences as an alias table (Vose): a square is then picked with one
 * uniform draw, whatever the weights. `cut[s]` is the chance of keeping square `s` when
 * its column is drawn, `alias[s]` the square taken otherwise.
 */
interface AliasTable {
  readonly cut: Float64Array;
  readonly alias: Uint8Array;
}

function aliasTable(weights: Float64Array): AliasTable {
  const scaled = new Float64Array(SQUARES);
  let total = 0;
  for (let s = 0; s < SQUARES; s++) total += scaled[s] = Math.exp(weights[s]!);
  for (let s = 0; s < SQUARES; s++) scaled[s]! *= SQUARES / total;
  const cut = new Float64Array(SQUARES).fill(1);
  const alias = new Uint8Array(SQUARES);
  const small: number[] = [];
  const large: number[] = [];
  for (let s = 0; s < SQUARES; s++) (scaled[s]! < 1 ? small : large).push(s);
  while (small.length > 0 && large.length > 0) {
    const lo = small.pop()!;
    const hi = large.at(-1)!;
    cut[lo] = scaled[lo]!;
    alias[lo] = hi;
    scaled[hi] = scaled[hi]! + scaled[lo]! - 1;
    if (scaled[hi] < 1) small.push(large.pop()!);
  }
  // Left over (rounding): kept whole.
  for (const s of small) alias[s] = s;
  for (const s of large) alias[s] = s;
  return { cut, alias };
}

/** `k` distinct squares (below 25), each picked by the crowd's preferences. */
function pickSquares(r: Prng, table: AliasTable, k: number): number {
  const { cut, alias } = table;
  let mask = 0;
  let picked = 0;
  while (picked < k) {
    const x = r.next() * SQUARES;
    const column = Math.floor(x);
    const square = x - column < cut[column]! ? column : alias[column]!;
    if ((mask & (1 << square)) === 0) {
      mask |= 1 << square;
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
