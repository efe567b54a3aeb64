import { LAMPORTS_PER_SOL, type ForwardEquityPoint } from '@gridlab/contracts';
import type { StatsRow } from '@gridlab/lab-store';
import { BetAccount, downsampleIndexes } from '@gridlab/strategy';


/**
 * A strategy's running forward figures (SPEC 7.10). The bet-rounds are accounted by the
 * engine's BetAccount, as a backtest accounts them (SPEC 7.8), so that over one session the
 * figures equal a backtest of the same rounds. Sessions continue one record: net, peak and
 * drawdown carry over, the losing streak restarts with a new session (its runner's sizing
 * and stops start afresh too). Beside the bets: every round seen, the non-voided ones, and
 * those settled without a prediction recorded in time (late).
 */
export interface Figures {
  readonly strategyId: string;
  sessionSeq: number;
  roundsObserved: number;
  roundsSettled: number;
  lateCount: number;
  lastRoundId: number | null;
  readonly bets: BetAccount;
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
  return { strategyId, sessionSeq, roundsObserved: 0, roundsSettled: 0, lateCount: 0, lastRoundId: null, bets: new BetAccount() };
}

/** The figures as stored (lab.forward_stats). */
export function figuresFromRow(row: StatsRow): Figures {
  const bets = Object.assign(new BetAccount(), {
    roundsBet: row.roundsBet,
    roundsWon: row.roundsWon,
    squaresBet: row.squaresBet,
    totalStake: row.stakeLamports,
    net: row.netLamports,
    minNet: row.minNetLamports,
    peak: row.peakLamports,
    maxDrawdown: row.maxDrawdownLamports,
    streak: row.streak,
    maxStreak: row.maxStreak,
    oreCarry: BigInt(row.oreEarned),
    oreValue: row.oreValueLamports,
  });
  const { strategyId, sessionSeq, roundsObserved, roundsSettled, lateCount, lastRoundId } = row;
  return { strategyId, sessionSeq, roundsObserved, roundsSettled, lateCount, lastRoundId, bets };
}

/** The figures to store. */
export function statsRow(f: Figures): StatsRow {
  const b = f.bets;
  return {
    strategyId: f.strategyId,
    sessionSeq: f.sessionSeq,
    roundsObserved: f.roundsObserved,
    roundsSettled: f.roundsSettled,
    roundsBet: b.roundsBet,
    roundsWon: b.roundsWon,
    squaresBet: b.squaresBet,
    netLamports: b.net,
    stakeLamports: b.totalStake,
    peakLamports: b.peak,
    minNetLamports: b.minNet,
    maxDrawdownLamports: b.maxDrawdown,
    streak: b.streak,
    maxStreak: b.maxStreak,
    lateCount: f.lateCount,
    roiPercent: b.roiPercent,
    lastRoundId: f.lastRoundId,
    oreEarned: b.oreEarned,
    oreValueLamports: b.oreValue,
  };
}

/** Enters session `seq` (a no-op when the figures are already in it). */
export function enterSession(f: Figures, seq: number): void {
  if (f.sessionSeq === seq) return;
  f.sessionSeq = seq;
  f.bets.streak = 0;
}

/** Adds one settled round to the figures (in place: the writer does this 20,000 times a round). */
export function addRound(f: Figures, r: SettledRound, late: boolean): void {
  f.roundsObserved++;
  f.lastRoundId = r.roundId;
  if (late) f.lateCount++;
  if (r.winningSquare === null) return;
  f.roundsSettled++;
  if (!r.bet) return;
  const bets = f.bets;
  bets.addBet(r.squares, r.stakeLamports, r.pnlLamports);
  if (r.hit) bets.roundsWon++;
  if (r.oreEarned > 0) bets.addOre(r.oreEarned, r.oreValueLamports);
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
