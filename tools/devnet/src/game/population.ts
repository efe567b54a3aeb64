/**
 * The devnet's miners: a pool of returning wallets, each with traits fixed by the seed —
 * how often it plays, how much it stakes, how many squares it takes, how often it deploys
 * twice in a round, how late in the round it deploys, and for the automated ones the
 * cycles of their automation. A round's stakes and players come from these traits (see
 * miner-model.ts), so the same wallets come back round after round with their own habits,
 * as on mainnet: a few whales and executors play most rounds and hold most of the SOL,
 * most wallets play now and then with small stakes.
 *
 * Nothing here depends on a round: a population is a pure function of the chain's seed and
 * settings, built once, and any round is still planned on its own from its own stream.
 */
import { Prng } from './prng';

/** Wallets the pool has per deploy a round has on average (mainnet: tens of thousands of wallets for some 400 deploys a round). */
const WALLETS_PER_DEPLOY = 25;
const MIN_POOL = 100;
/** The largest pool: miner indices are u16 columns. */
export const MINER_POOL = 65_536;
const SQUARES = 25;
const LAMPORTS_PER_SOL = 1_000_000_000;
/** The smallest stake a deploy puts down in all (lamports). */
export const MIN_STAKE_LAMPORTS = 10_000;

/** Share of wallets that are whales: they play most rounds, stake 10-100x the median wallet, and mostly take the whole board. */
const WHALE_SHARE = 0.005;
/** A whale's chance of playing a round, before the round's own activity swing. */
const WHALE_RATE_MIN = 0.35;
const WHALE_RATE_SPAN = 0.55;
/** Spread (sigma of the log) of the other wallets' activity: most play rarely, some often. */
const ACTIVITY_SIGMA = 1.7;
/** A wallet's chance of playing a round never passes this (before the round's swing). */
const MAX_RATE = 0.95;
/** Pareto index of the other wallets' stakes: most near the minimum, a tail of larger ones. */
const STAKE_PARETO = 1.4;
/** The other wallets' stakes stop at this multiple of the smallest: above is the whales' range. */
const STAKE_CAP = 12;
/** Mean chance that a deploy is followed by a second deploy of the wallet in the same round. */
const TOP_UP_MEAN = 0.04;
const TOP_UP_SIGMA = 1;
const MAX_TOP_UP = 0.5;
/** Mean SOL a round without a whale bet holds (its median comes out near 15 SOL, mainnet's). */
export const MEAN_ROUND_SOL = 15.5;
/** Spread of the crowd's mood (all stakes of a round) and of one deploy's stake around its wallet's. */
export const MOOD_SIGMA = 0.3;
export const STAKE_NOISE_SIGMA = 0.4;
/** Rounds an automation's deposit pays for in full, before the round its balance runs out in. */
const MIN_RUN = 1;
const MAX_RUN = 8;
/** An automated wallet's automation is open about this share of rounds (uniform between the two). */
const DUTY_MIN = 0.4;
const DUTY_SPAN = 0.5;
/** A manual wallet's timing: its deploys spread over the round, lean towards its end, or more so. */
export const TIMING = { uniform: 0, late: 1, later: 2 } as const;
/** Shares of the wallets with each timing (the deploys then land at 0.66 of the round on average). */
const TIMING_SHARES = [0.2, 0.5] as const;
/** Rates of one class of `Population.byRate` differ by less than this factor. */
const CLASS_RATIO = 1.25;

/** Per-wallet traits, as columns indexed by miner (the wallet's index in the pool). */
export class Population {
  readonly size: number;
  /** A wallet's chance of playing a round, before the round's swing (miner-model.ts). */
  readonly rate: Float64Array;
  /** Lamports the wallet's deploy puts down in all, in an ordinary round. */
  readonly stake: Float64Array;
  /** Squares it usually takes: 1 to 5, or all 25. */
  readonly habit: Uint8Array;
  /** Chance that a deploy of it is followed by a second one in the round. */
  readonly topUp: Float64Array;
  /** How late in the round it deploys: at `u`, `sqrt(u)` or `cbrt(u)` of it (u uniform; see miner-model.ts). */
  readonly timing: Uint8Array;
  readonly whale: Uint8Array;
  /** The automated wallets (sorted), and the cycle each automation runs: open `run + 1` rounds out of every `period`, shifted by `offset`. */
  readonly automated: readonly AutomatedCycle[];
  /** Automated deploys a round has on average (the executors'). */
  readonly automatedPerRound: number;
  /** Wallets by decreasing rate, split in classes whose rates are within CLASS_RATIO of the class's first (for skipping over non-players). */
  readonly byRate: Uint32Array;
  readonly classStart: Uint32Array;

  constructor(seed: number, meanDeploys: number, automatedShare: number) {
    const r = new Prng(seed ^ 0x90b0_1a7e);
    const size = Math.min(MINER_POOL, Math.max(MIN_POOL, Math.round(WALLETS_PER_DEPLOY * meanDeploys)));
    this.size = size;
    const traits = drawTraits(r, size);
    this.habit = traits.habit;
    this.topUp = traits.topUp;
    this.timing = traits.timing;
    this.whale = traits.whale;
    this.automated = drawCycles(r, size, Math.max(0, Math.min(1, automatedShare)) * meanDeploys);
    this.automatedPerRound = this.automated.reduce((a, c) => a + (c.run + 1) / c.period, 0);
    // A wallet plays by hand only while its automation is closed.
    const closedShare = new Float64Array(size).fill(1);
    for (const c of this.automated) closedShare[c.miner] = 1 - (c.run + 1) / c.period;
    this.rate = calibrateRates(traits, closedShare, Math.max(0, meanDeploys - this.automatedPerRound));
    this.stake = calibrateStakes(traits.stake, this.rate, this.topUp, closedShare, this.automated);
    this.byRate = Uint32Array.from({ length: size }, (_, i) => i).sort((a, b) => this.rate[b]! - this.rate[a]! || a - b);
    const starts: number[] = [];
    for (let j = 0; j < size; j++) if (j === 0 || this.rate[this.byRate[j]!]! * CLASS_RATIO < this.rate[this.byRate[starts.at(-1)!]!]!) starts.push(j);
    starts.push(size);
    this.classStart = Uint32Array.from(starts);
  }
}

interface Traits {
  /** A whale's chance of playing; another wallet's relative activity (calibrated by calibrateRates). */
  readonly activity: Float64Array;
  /** Relative stakes (scaled to lamports by calibrateStakes). */
  readonly stake: Float64Array;
  readonly habit: Uint8Array;
  readonly topUp: Float64Array;
  readonly timing: Uint8Array;
  readonly whale: Uint8Array;
}

function drawTraits(r: Prng, size: number): Traits {
  const t = {
    activity: new Float64Array(size),
    stake: new Float64Array(size),
    habit: new Uint8Array(size),
    topUp: new Float64Array(size),
    timing: new Uint8Array(size),
    whale: new Uint8Array(size),
  };
  // The median of the others' stakes is 2^(1/STAKE_PARETO) times the smallest; a whale's is 10-100x it.
  const median = 2 ** (1 / STAKE_PARETO);
  for (let i = 0; i < size; i++) {
    const whale = r.next() < WHALE_SHARE;
    t.whale[i] = whale ? 1 : 0;
    t.stake[i] = whale ? median * 10 ** (1 + r.next()) : Math.min(STAKE_CAP, (1 - r.next()) ** (-1 / STAKE_PARETO));
    t.activity[i] = whale ? WHALE_RATE_MIN + WHALE_RATE_SPAN * r.next() : Math.exp(ACTIVITY_SIGMA * r.normal());
    const roll = r.next();
    t.habit[i] = roll < (whale ? 0.8 : 0.06) ? SQUARES : roll < (whale ? 0.85 : 0.5) ? 1 : 1 + r.int(5);
    t.topUp[i] = Math.min(MAX_TOP_UP, TOP_UP_MEAN * Math.exp(TOP_UP_SIGMA * r.normal() - (TOP_UP_SIGMA * TOP_UP_SIGMA) / 2));
    const late = r.next();
    t.timing[i] = late < TIMING_SHARES[0] ? TIMING.uniform : late < TIMING_SHARES[0] + TIMING_SHARES[1] ? TIMING.late : TIMING.later;
  }
  return t;
}

/** Automated wallets, picked until their cycles make `target` deploys a round on average; sorted by miner. */
function drawCycles(r: Prng, size: number, target: number): AutomatedCycle[] {
  const cycles: AutomatedCycle[] = [];
  const picked = new Uint8Array(size);
  let perRound = 0;
  while (perRound < target && cycles.length < size) {
    const miner = r.int(size);
    if (picked[miner] === 1) continue;
    picked[miner] = 1;
    const run = MIN_RUN + r.int(MAX_RUN - MIN_RUN + 1);
    // At least one round closed between two cycles: the wallet Automates again after its balance ran out.
    const period = Math.max(run + 2, Math.round((run + 1) / (DUTY_MIN + DUTY_SPAN * r.next())));
    cycles.push({ miner, run, period, offset: r.int(period) });
    perRound += (run + 1) / period;
  }
  return cycles.sort((a, b) => a.miner - b.miner);
}

/**
 * Each wallet's chance of playing a round: a whale's is its own, the others' activities
 * times the factor (found by bisection) that makes the manual deploys, top-ups included,
 * `target` a round on average.
 */
function calibrateRates(traits: Traits, closedShare: Float64Array, target: number): Float64Array {
  const { activity, whale, topUp } = traits;
  const rateAt = (i: number, k: number): number => (whale[i] === 1 ? activity[i]! : Math.min(MAX_RATE, activity[i]! * k));
  const deploysAt = (k: number): number => {
    let sum = 0;
    for (let i = 0; i < activity.length; i++) sum += expectedPlays(rateAt(i, k)) * closedShare[i]! * (1 + topUp[i]!);
    return sum;
  };
  let lo = 0;
  let hi = 1;
  while (deploysAt(hi) < target && hi < 1e12) hi *= 2;
  for (let it = 0; it < 40; it++) {
    const mid = (lo + hi) / 2;
    if (deploysAt(mid) < target) lo = mid;
    else hi = mid;
  }
  return activity.map((_, i) => rateAt(i, hi));
}

/** Stakes in lamports, scaled so that an ordinary round holds MEAN_ROUND_SOL on average (a top-up adds about a quarter deploy: half the amount, on its new squares only). */
function calibrateStakes(relative: Float64Array, rate: Float64Array, topUp: Float64Array, closedShare: Float64Array, cycles: readonly AutomatedCycle[]): Float64Array {
  const noise = Math.exp((MOOD_SIGMA * MOOD_SIGMA + STAKE_NOISE_SIGMA * STAKE_NOISE_SIGMA) / 2);
  let perRound = 0;
  for (let i = 0; i < relative.length; i++) perRound += expectedPlays(rate[i]!) * closedShare[i]! * relative[i]! * noise * (1 + topUp[i]! / 4);
  for (const c of cycles) perRound += ((c.run + 1) / c.period) * relative[c.miner]!;
  const scale = perRound === 0 ? 0 : (MEAN_ROUND_SOL * LAMPORTS_PER_SOL) / perRound;
  return relative.map((s) => Math.max(MIN_STAKE_LAMPORTS, Math.floor(s * scale)));
}

/** An automated wallet's cycles: its automation is open in round `id` when `(id + offset) % period <= run`. */
export interface AutomatedCycle {
  readonly miner: number;
  readonly run: number;
  readonly period: number;
  readonly offset: number;
}

/**
 * Rounds a wallet of rate `p` plays on average: a round's swing `f` (uniform in 0.5-1.5,
 * see miner-model.ts) makes its chance `min(1, f * p)`.
 */
export function expectedPlays(p: number): number {
  return p <= 2 / 3 ? p : 1.5 - 1 / (2 * p) - p / 8;
}

const cache = new Map<string, Population>();

/** The chain's population (built once per settings). */
export function populationOf(seed: number, meanDeploys: number, automatedShare: number): Population {
  const key = `${seed}:${meanDeploys}:${automatedShare}`;
  let population = cache.get(key);
  if (population === undefined) {
    population = new Population(seed, meanDeploys, automatedShare);
    if (cache.size > 8) cache.delete(cache.keys().next().value!);
    cache.set(key, population);
  }
  return population;
}
