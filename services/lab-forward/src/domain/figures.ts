import type { ForwardEquityPoint, StopReason } from '@gridlab/contracts';
import { downsampleIndexes } from '@gridlab/strategy';

const LAMPORTS_PER_SOL = 1e9;

/**
 * A strategy's running forward figures (SPEC 7.10), in lamports. Bet-round accounting
 * follows the backtest's (SPEC 7.8) exactly, so that over one session the figures equal
 * a backtest of the same rounds: a bet-round with PnL < 0 extends the losing streak, any
 * other bet-round ends it; drawdown is measured from the running peak (which starts at 0).
 * Sessions continue one record: net, peak and drawdown carry over, the losing streak
 * restarts with a new session (its runner's sizing and stops start afresh too).
 */
export interface Figures {
  strategyId: string;
  sessionSeq: number;
  roundsObserved: number;
  roundsSettled: number;
  roundsBet: number;
  roundsWon: number;
  squaresBet: number;
  netLamports: number;
  stakeLamports: number;
  peakLamports: number;
  minNetLamports: number;
  maxDrawdownLamports: number;
  streak: number;
  maxStreak: number;
  lateCount: number;
  roiPercent: number;
  lastRoundId: number | null;
  /** ORE earned on `returns` rounds (base units), a decimal string: the sum may pass 2^53. */
  oreEarned: string;
  /** That ORE's value in lamports at each round's production cost (part of netLamports). */
  oreValueLamports: number;
}

/** What the runner reported for one round (see @gridlab/strategy's RoundOutcome). */
export interface SettledRound {
  readonly roundId: number;
  /** null: the round was voided (nothing is bet on it). */
  readonly winningSquare: number | null;
  readonly bet: boolean;
  /** Squares with a stake. */
  readonly squares: number;
  readonly stakeLamports: number;
  readonly pnlLamports: number;
  readonly hit: boolean;
  /** ORE earned this round (base units) and its value in lamports (inside pnlLamports). */
  readonly oreEarned: number;
  readonly oreValueLamports: number;
}

export function emptyFigures(strategyId: string, sessionSeq: number): Figures {
  return {
    strategyId,
    sessionSeq,
    roundsObserved: 0,
    roundsSettled: 0,
    roundsBet: 0,
    roundsWon: 0,
    squaresBet: 0,
    netLamports: 0,
    stakeLamports: 0,
    peakLamports: 0,
    minNetLamports: 0,
    maxDrawdownLamports: 0,
    streak: 0,
    maxStreak: 0,
    lateCount: 0,
    roiPercent: 0,
    lastRoundId: null,
    oreEarned: '0',
    oreValueLamports: 0,
  };
}

/** Enters session `seq` (a no-op when the figures are already in it). */
export function enterSession(f: Figures, seq: number): void {
  if (f.sessionSeq === seq) return;
  f.sessionSeq = seq;
  f.streak = 0;
}

/** Adds one settled round to the figures (in place: the writer does this 20,000 times a round). */
export function addRound(f: Figures, r: SettledRound, late: boolean): void {
  f.roundsObserved++;
  f.lastRoundId = r.roundId;
  if (late) f.lateCount++;
  if (r.winningSquare === null) return;
  f.roundsSettled++;
  if (!r.bet) return;
  f.roundsBet++;
  f.squaresBet += r.squares;
  f.stakeLamports += r.stakeLamports;
  if (r.hit) f.roundsWon++;
  if (r.oreEarned > 0) {
    f.oreEarned = (BigInt(f.oreEarned) + BigInt(r.oreEarned)).toString();
    f.oreValueLamports += r.oreValueLamports;
  }
  const net = f.netLamports + r.pnlLamports;
  f.netLamports = net;
  if (net < f.minNetLamports) f.minNetLamports = net;
  if (net > f.peakLamports) f.peakLamports = net;
  else if (f.peakLamports - net > f.maxDrawdownLamports) f.maxDrawdownLamports = f.peakLamports - net;
  if (r.pnlLamports < 0) {
    f.streak++;
    if (f.streak > f.maxStreak) f.maxStreak = f.streak;
  } else {
    f.streak = 0;
  }
  f.roiPercent = roiPercent(f.netLamports, f.stakeLamports);
}

/** 100 * net / stake, 0 when nothing was staked (as the backtest computes it). */
export function roiPercent(net: number, stake: number): number {
  return stake > 0 ? (100 * net) / stake : 0;
}

export const toSol = (lamports: number): number => lamports / LAMPORTS_PER_SOL;

/** The running balance after each settled round, downsampled like a backtest's (SPEC 7.8). */
export function equityCurve(series: readonly { readonly roundId: number; readonly pnlLamports: number }[]): ForwardEquityPoint[] {
  const balance = new Float64Array(series.length);
  let running = 0;
  for (let i = 0; i < series.length; i++) {
    running += series[i]!.pnlLamports;
    balance[i] = running;
  }
  return downsampleIndexes(balance).map((i) => ({ round: series[i]!.roundId, balanceLamports: balance[i]! }));
}

/** `first four...last four` of the owner's key (SPEC 7.10). */
export function ownerShort(owner: string): string {
  return owner.length <= 8 ? owner : `${owner.slice(0, 4)}...${owner.slice(-4)}`;
}

/** The stop a runner reported, as stored. */
export type { StopReason };
