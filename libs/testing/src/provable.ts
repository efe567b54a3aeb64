import type { KnownRound, Round } from '@gridlab/contracts';

/** How a round's deploys show in its transactions (the devnet's `roundDeploys`). */
export interface RoundDeploys {
  /** Automated deploys that took squares. */
  readonly automatedWithSquares: number;
  readonly resetEventLength: 128 | 144;
  /**
   * Lamports per square of the deploys whose squares the transactions show: the manual
   * deploys of wallets that had no automated deploy earlier in the round (once a wallet's
   * deploy hides its squares, which squares its later ones skipped is not known either).
   */
  readonly shown: readonly number[];
}

/**
 * What a reader of a round's transactions can prove of it, as docs/decisions.md ("History
 * from transactions") states the rule, worked from the devnet's own record of the round
 * (not by running the rebuild): the round itself when every deploy shows its squares;
 * partly known when an automated deploy took squares before the program logged the
 * squares taken (a ResetEvent shorter than 136 bytes): the totals and outcome, the
 * winning square's miners and stake (unless two stakes give the reset's totals: the
 * losing SOL after the 1% fee a multiple of 99, L and L - 1 both possible, and the deploys
 * shown rule out neither: the winning square holds at least what was shown on it, the
 * others at least what was shown on them), null on every other square.
 */
export function provableRound(truth: KnownRound, deploys: RoundDeploys | null): Round {
  if (deploys === null || deploys.automatedWithSquares === 0 || deploys.resetEventLength >= 136) return truth;
  const deployed = new Array<number | null>(25).fill(null);
  const count = new Array<number | null>(25).fill(null);
  const w = truth.winningSquare;
  if (w !== null) {
    const onSquare = truth.deployed[w]!;
    const afterFee = truth.totalWinnings + truth.totalVaulted;
    const losing = truth.totalDeployed - onSquare;
    const shownElsewhere = deploys.shown.reduce((a, b) => a + b, 0) - deploys.shown[w]!;
    // Where the losing SOL after the fee is a multiple of 99, L and L - 1 both give it; the other one is possible when the deploys shown fit it.
    const other = losing % 100 === 0 ? losing - 1 : losing + 1;
    const otherFits = other - Math.floor(other / 100) === afterFee && truth.totalDeployed - other >= Math.max(1, deploys.shown[w]!) && other >= shownElsewhere;
    deployed[w] = onSquare > 0 && afterFee > 0 && afterFee % 99 === 0 && otherFits ? null : onSquare;
    count[w] = truth.count[w]!;
  }
  return { ...truth, source: 'transactions_partial', deployed, count };
}
