/**
 * What a stake added now to a square of the live round is expected to bring back, under
 * the round's payout rule: the SOL (exact integer fees on the square's new total, as the
 * program settles it) and the ORE (the prize and, one round in 500, the motherlode, pro
 * rata on the winning square), valued at an ORE price. Every square wins with
 * probability 1/25; the deploys others make after ours are not known and not counted.
 */
import { ORE_BASE_UNITS, SQUARES } from './ore-layout';
import type { PayoutRule } from './settlement';

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

/** The lamports one miner with `stake` of a square holding `total` gets of `amount` shared pro rata (floored, as the program pays). */
function share(stake: number, amount: number, total: number): number {
  return total === 0 ? 0 : Number((BigInt(stake) * BigInt(amount)) / BigInt(total));
}

/**
 * Lamports the stake `x` on `square` gets back when `winner` wins, with the other squares
 * as in `deployed` (ours added to `square`). `returns`: each square's miners get their SOL
 * back less `max(1, floor(T/100))` and, on a losing square, less the protocol fee
 * `max(1, floor((T - admin)/10))`. `parimutuel`: the winning square's miners get their
 * stake back less 1% (at least a lamport) and share the losing squares' SOL after its 1%
 * admin fee and 10% vault; the losing squares' miners get nothing.
 */
export function solBack(rule: PayoutRule, deployed: readonly number[], square: number, x: number, winner: number): number {
  const total = deployed[square]! + x;
  if (rule === 'returns') {
    const admin = Math.max(1, Math.floor(total / 100));
    if (winner === square) return share(x, total - admin, total);
    const protocol = Math.min(total - admin, Math.max(1, Math.floor((total - admin) / 10)));
    return share(x, total - admin - protocol, total);
  }
  if (winner !== square) return 0;
  let losing = 0n;
  for (let s = 0; s < SQUARES; s++) if (s !== square) losing += BigInt(deployed[s]!);
  const winnings = (((losing * 99n) / 100n) * 9n) / 10n;
  return x - Math.max(1, Math.floor(x / 100)) + Number((BigInt(x) * winnings) / BigInt(total));
}

/** Expected ORE (base units) of `x` on a square holding `t`: (1/25) · x/(t+x) · (reward + pool/500). */
export function expectedOre(round: EvRound, t: number, x: number): number {
  return ((x / (t + x)) * (round.oreReward + round.motherlodePool / MOTHERLODE_ODDS)) / SQUARES;
}

/** The EV of staking `x` lamports on `square`, the ORE valued at `orePriceLamports` per whole ORE. */
export function squareEv(round: EvRound, square: number, x: number, orePriceLamports: number): SquareEv {
  if (!Number.isSafeInteger(x) || x <= 0) throw new RangeError('the stake must be a positive integer of lamports');
  const t = round.deployed[square]!;
  // The square wins once in 25 and loses otherwise; losing pays the same whichever square wins.
  const other = square === 0 ? 1 : 0;
  const back = (solBack(round.payoutRule, round.deployed, square, x, square) + (SQUARES - 1) * solBack(round.payoutRule, round.deployed, square, x, other)) / SQUARES;
  const ore = expectedOre(round, t, x);
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
