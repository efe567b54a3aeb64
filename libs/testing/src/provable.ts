import type { KnownRound, Round } from '@gridlab/contracts';

/** How a round's deploys show in its transactions (the devnet's `roundDeploys`). */
export interface RoundDeploys {
  /** Automated deploys that took squares. */
  readonly automatedWithSquares: number;
  readonly resetEventLength: 128 | 144;
}

/**
 * What a reader of a round's transactions can prove of it, as docs/decisions.md ("History
 * from transactions") states the rule, worked from the devnet's own record of the round
 * (not by running the rebuild): the round itself when every deploy shows its squares;
 * partly known when an automated deploy took squares before the program logged the
 * squares taken (a ResetEvent shorter than 136 bytes): the totals and outcome, the
 * winning square's miners and stake (unless two stakes give the reset's totals: the
 * losing SOL after the 1% fee a multiple of 99), null on every other square.
 */
export function provableRound(truth: KnownRound, deploys: RoundDeploys | null): Round {
  if (deploys === null || deploys.automatedWithSquares === 0 || deploys.resetEventLength >= 136) return truth;
  const deployed = new Array<number | null>(25).fill(null);
  const count = new Array<number | null>(25).fill(null);
  const w = truth.winningSquare;
  if (w !== null) {
    const onSquare = truth.deployed[w]!;
    const afterFee = truth.totalWinnings + truth.totalVaulted;
    deployed[w] = onSquare > 0 && afterFee > 0 && afterFee % 99 === 0 ? null : onSquare;
    count[w] = truth.count[w]!;
  }
  return { ...truth, source: 'transactions_partial', deployed, count };
}
