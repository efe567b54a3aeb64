/**
 * What a stake added now to a square of the live round is expected to bring back, under
 * the round's payout rule: the SOL (exact integer fees on the square's new total, as the
 * program settles it) and the ORE (the prize and, one round in 500, the motherlode, pro
 * rata on the winning square), valued at an ORE price. Every square wins with
 * probability 1/25; the deploys others make after ours are not known and not counted.
 */
import { ORE_BASE_UNITS } from '@gridlab/contracts';
import { SQUARES } from './ore-layout';
import { share, solBack, type PayoutRule } from './settlement';

/** One round in this many pays out the motherlode. */
export const MOTHERLODE_ODDS = 500;

/** The live round as EV needs it. */
export interface EvRound {
  /** Lamports on each square now. */
  readonly deployed: readonly number[];
  readonly payoutRule: PayoutRule;
  /** ORE base units the winning square's miners share (or one of them takes): 1 ORE (10^11). */
  readonly oreReward: number;
  /** ORE base units in the motherlode pool. */
  readonly motherlodePool: number;
  /**
   * Per square, whether its prize would be split pro rata (true) or go to one miner drawn
   * by stake (false), as the round id's distribution mask says since 2026-07-29; null or
   * absent when the round's randomness decides (one chance in two each way).
   */
  readonly splitSquares?: readonly boolean[] | null;
}

/** A stake's expectation on one square. */
export interface SquareEv {
  readonly square: number;
  /** Expected lamports back (the stake included). */
  readonly expectedSolBack: number;
  /** Expected ORE, base units (fractional: an expectation). */
  readonly expectedOre: number;
  /** Expected lamports won or lost: SOL back less the stake, plus the ORE at the price. */
  readonly evLamports: number;
  /** `evLamports` per lamport staked: -0.05 loses 5% of the stake on average. */
  readonly evPerSol: number;
}

/**
 * Expected ORE (base units) of `x` on `square` holding `t`, over the 25 equally likely
 * winners: a split prize pays `floor(reward * x/(t+x))`, a solo prize all of it with the
 * chance `x/(t+x)` that the draw lands on our stake, and one round in 500 the pool pays
 * `floor(pool * x/(t+x))` (`checkpoint.rs`: every share is floored).
 */
export function expectedOre(round: EvRound, square: number, t: number, x: number): number {
  const total = t + x;
  const split = round.splitSquares?.[square];
  const soloShare = (round.oreReward * x) / total;
  const prize = split === false ? soloShare : split === true ? share(x, round.oreReward, total) : (share(x, round.oreReward, total) + soloShare) / 2;
  const pool = round.motherlodePool === 0 ? 0 : share(x, round.motherlodePool, total);
  return (prize + pool / MOTHERLODE_ODDS) / SQUARES;
}

/** The EV of staking `x` lamports on `square`, the ORE valued at `orePriceLamports` per whole ORE. */
export function squareEv(round: EvRound, square: number, x: number, orePriceLamports: number): SquareEv {
  if (!Number.isSafeInteger(x) || x <= 0) throw new RangeError('the stake must be a positive integer of lamports');
  const t = round.deployed[square]!;
  // The square wins once in 25 and loses otherwise; losing pays the same whichever square wins.
  const other = square === 0 ? 1 : 0;
  const back = (solBack(round.payoutRule, round.deployed, square, x, square) + (SQUARES - 1) * solBack(round.payoutRule, round.deployed, square, x, other)) / SQUARES;
  const ore = expectedOre(round, square, t, x);
  const evLamports = back - x + (ore * orePriceLamports) / ORE_BASE_UNITS;
  return { square, expectedSolBack: back, expectedOre: ore, evLamports, evPerSol: evLamports / x };
}

/** Every square's EV for a stake of `x`, by square. */
export function boardEv(round: EvRound, x: number, orePriceLamports: number): SquareEv[] {
  return Array.from({ length: SQUARES }, (_, s) => squareEv(round, s, x, orePriceLamports));
}

/** The `k` squares with the highest EV (ties: the lower square). */
export function bestSquares(evs: readonly SquareEv[], k: number): SquareEv[] {
  return [...evs].sort((a, b) => b.evLamports - a.evLamports || a.square - b.square).slice(0, k);
}
