import { SQUARES } from './ore-layout';

/** Totals the reset writes into a round account (SPEC 3, v3 settlement). */
export interface SettlementTotals {
  readonly totalDeployed: number;
  readonly adminFee: number;
  readonly totalVaulted: number;
  readonly totalWinnings: number;
}

/**
 * v3 settlement in exact integer arithmetic: of the SOL on losing squares `L`, 1% is
 * the admin fee, 10% of the rest is vaulted, and the remainder is `total_winnings`
 * shared by the winning square's miners: `winnings = floor(floor(L * 99/100) * 9/10)`,
 * `vaulted = floor(L * 99/100) - winnings`. The admin fee also takes 1% of the winning
 * square's own stake. A voided round (no winning square) refunds everything.
 */
export function settleRound(deployed: readonly number[], winning: number | null): SettlementTotals {
  if (deployed.length !== SQUARES) throw new RangeError(`deployed must have ${SQUARES} entries`);
  let total = 0n;
  for (const d of deployed) total += BigInt(d);
  if (winning === null) {
    return { totalDeployed: Number(total), adminFee: 0, totalVaulted: 0, totalWinnings: 0 };
  }
  const onWinner = BigInt(deployed[winning] ?? 0);
  const losing = total - onWinner;
  const losingAfterFee = (losing * 99n) / 100n;
  const winnings = (losingAfterFee * 9n) / 10n;
  const adminFee = total - ((losing * 99n) / 100n + (onWinner * 99n) / 100n);
  return {
    totalDeployed: Number(total),
    adminFee: Number(adminFee),
    totalVaulted: Number(losingAfterFee - winnings),
    totalWinnings: Number(winnings),
  };
}
