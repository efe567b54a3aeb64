/**
 * Re-pricing of forward figures settled with an earlier payout arithmetic (SPEC 7.7). The
 * recorded decisions (squares and stakes) stay as they were: only what the program would
 * have paid them changes. Under revision `p1` a parimutuel hit was paid
 * `floor(0.99*S_w + 0.891*L*S_w/(D_w+S_w))` in doubles, a lamport or two off the program;
 * misses and `returns` rounds were priced exactly and are left alone.
 */
import type { StatsRow } from '@gridlab/lab-store';
import { BetAccount, payoutLamports, roiPercent } from '@gridlab/strategy';

/** The revision-p1 payout of a parimutuel hit, as SPEC 7.7 stated it until 2026-11. */
function payoutP1(sw: number, dw: number, l: number): number {
  return sw > 0 ? Math.floor(0.99 * sw + (0.891 * l * sw) / (dw + sw)) : 0;
}

/** A settled parimutuel round as the payout needs it. */
export interface ParimutuelRound {
  readonly winningSquare: number;
  /** Lamports others deployed on the winning square. */
  readonly deployedOnWinner: number;
  /** Lamports deployed on the whole board. */
  readonly deployedTotal: number;
}

/** The PnL of a settled parimutuel hit re-priced from revision p1 to the program's arithmetic. */
export function repricedHit(hit: { readonly squares: readonly number[]; readonly stakes: readonly number[]; readonly pnlLamports: number }, round: ParimutuelRound): number {
  const at = hit.squares.indexOf(round.winningSquare);
  if (at < 0) return hit.pnlLamports;
  const sw = hit.stakes[at]!;
  const stakes = hit.stakes.reduce((a, b) => a + b, 0);
  const l = round.deployedTotal - round.deployedOnWinner + stakes - sw;
  return hit.pnlLamports - payoutP1(sw, round.deployedOnWinner, l) + payoutLamports(sw, round.deployedOnWinner, l);
}

/**
 * The figures after re-pricing: net, its lowest point, peak and largest drawdown follow
 * the re-priced PnL series of every bet-round (they carry across sessions); counts and
 * stakes do not change. The losing streak is recounted over the current session's
 * bet-rounds (those from `sessionStartRoundId`); the longest streak keeps its stored value
 * unless the current session's is longer (a re-priced lamport turns a loss into a win
 * only for a bet that came out within two lamports of even).
 */
export function repricedStats(
  stats: StatsRow,
  bets: readonly { readonly roundId: number; readonly squares: number; readonly stakeLamports: number; readonly pnlLamports: number }[],
  sessionStartRoundId: number,
): StatsRow {
  const all = new BetAccount();
  const session = new BetAccount();
  for (const b of bets) {
    all.addBet(b.squares, b.stakeLamports, b.pnlLamports);
    if (b.roundId >= sessionStartRoundId) session.addBet(b.squares, b.stakeLamports, b.pnlLamports);
  }
  return {
    ...stats,
    netLamports: all.net,
    minNetLamports: all.minNet,
    peakLamports: all.peak,
    maxDrawdownLamports: all.maxDrawdown,
    streak: session.streak,
    maxStreak: Math.max(stats.maxStreak, session.maxStreak),
    roiPercent: roiPercent(all.net, stats.stakeLamports),
  };
}
