import type { BacktestSummary } from '../backtest/result';
import type { ExitReason } from './run-stats';

/** A runner's figures so far: a backtest summary whose range is null before any round. */
export type RunSummary = Omit<BacktestSummary, 'rangeMin' | 'rangeMax' | 'exitRoundId'> & {
  readonly rangeMin: number | null;
  readonly rangeMax: number | null;
  readonly exitRoundId: number | null;
};

/** Why a round was or was not bet. */
export type DecisionReason = 'bet' | 'voided' | 'stopped' | 'cooldown' | 'no_squares' | 'filtered' | 'zero_stakes' | 'bankroll_depleted';

/** The squares and stakes chosen for one round (empty when not bet). */
export interface Decision {
  readonly bet: boolean;
  readonly reason: DecisionReason;
  readonly squares: readonly number[];
  readonly stakesLamports: readonly number[];
}

/** One round through the runner: its decision and settlement (SPEC 7.7). */
export interface RoundOutcome {
  readonly roundId: number;
  readonly winningSquare: number | null;
  readonly decision: Decision;
  readonly stakeLamports: number;
  readonly payoutLamports: number;
  /** floor(payout) - stakes - fee when bet, else 0 (the ORE's value included). */
  readonly pnlLamports: number;
  /** `returns` rounds: ORE earned on the winning square (base units), else 0. */
  readonly oreEarned: number;
  /** That ORE valued at the round's production cost (lamports, part of the payout and PnL). */
  readonly oreValueLamports: number;
  /** The winning square was among the squares bet. */
  readonly hit: boolean;
  /** A stake was reduced by max_bet_per_square_lamports. */
  readonly capHit: boolean;
  /** The stop this round triggered, if any. */
  readonly exit: ExitReason | null;
}

export interface RunnerOptions {
  /** Keep each round's PnL (a backtest result and analytics need it). */
  readonly record?: boolean;
  /** With `record`, keep each round's total stake too (analytics' bootstrap). */
  readonly recordStakes?: boolean;
  /** Accumulate the exact mean and variance of each bet-round's PnL under a uniform winner. */
  readonly chanceMoments?: boolean;
  /**
   * Whether runTo with flat stakes reads squares from the history's precomputed rankings
   * (same results). Default: when the run spans at least 20,000 rounds.
   */
  readonly precomputedRankings?: boolean;
}
