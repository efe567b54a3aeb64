import { SQUARES } from './ore-layout';

/** How a settled round paid its miners (SPEC 3). */
export type PayoutRule = 'parimutuel' | 'returns';

/** Totals the reset writes into a round account. */
export interface SettlementTotals {
  readonly totalDeployed: number;
  readonly adminFee: number;
  readonly totalVaulted: number;
  readonly totalWinnings: number;
}

function sumOf(deployed: readonly number[]): bigint {
  if (deployed.length !== SQUARES) throw new RangeError(`deployed must have ${SQUARES} entries`);
  let total = 0n;
  for (const d of deployed) total += BigInt(d);
  return total;
}

/**
 * The `parimutuel` rule (v3, and 952-byte rounds until 2026-08-12) in exact integer
 * arithmetic: of the SOL on losing squares `L`, 1% is the admin fee, 10% of the rest is
 * vaulted and the remainder is `total_winnings`, shared by the winning square's miners:
 * `winnings = floor(floor(L * 99/100) * 9/10)`, `vaulted = floor(L * 99/100) - winnings`.
 * The admin fee also takes 1% of the winning square's own stake. When nobody deployed on
 * the winning square, everything after the admin fee is vaulted. A voided round (no
 * winning square) refunds everything and writes no totals.
 */
export function settleRound(deployed: readonly number[], winning: number | null): SettlementTotals {
  const total = sumOf(deployed);
  if (winning === null) {
    return { totalDeployed: Number(total), adminFee: 0, totalVaulted: 0, totalWinnings: 0 };
  }
  const onWinner = BigInt(deployed[winning] ?? 0);
  const losing = total - onWinner;
  const losingAfterFee = (losing * 99n) / 100n;
  const adminFee = total - (losingAfterFee + (onWinner * 99n) / 100n);
  const winnings = onWinner === 0n ? 0n : (losingAfterFee * 9n) / 10n;
  return {
    totalDeployed: Number(total),
    adminFee: Number(adminFee),
    totalVaulted: Number(losingAfterFee - winnings),
    totalWinnings: Number(winnings),
  };
}

/**
 * The `returns` rule (since 2026-08-12, "remove parimutuel"): no SOL moves between
 * squares. Per square with `t = deployed > 0`: `admin = max(1, floor(t/100))`; the
 * winning square's miners get `t - admin` back; every other square vaults
 * `protocol = max(1, floor((t - admin)/10))` (at most `t - admin`) and returns
 * `t - admin - protocol`.
 * `totalWinnings` (the program's `total_returned_sol`) is the SOL returned,
 * `totalVaulted` the protocol fees. A voided round refunds everything: the program then
 * zeroes `deployed` and writes the refund as `total_winnings` (see `encodeRound`).
 */
export function settleReturns(deployed: readonly number[], winning: number | null): SettlementTotals {
  const total = sumOf(deployed);
  if (winning === null) return { totalDeployed: Number(total), adminFee: 0, totalVaulted: 0, totalWinnings: Number(total) };
  let admin = 0;
  let protocol = 0;
  for (let s = 0; s < SQUARES; s++) {
    const t = deployed[s]!;
    if (t <= 0) continue;
    const a = Math.max(1, Math.floor(t / 100));
    admin += a;
    // The minimum fees can exceed a 1-lamport square: nothing comes back, nothing below zero.
    if (s !== winning) protocol += Math.min(t - a, Math.max(1, Math.floor((t - a) / 10)));
  }
  return {
    totalDeployed: Number(total),
    adminFee: admin,
    totalVaulted: protocol,
    totalWinnings: Number(total) - admin - protocol,
  };
}

/** Totals of a round under a rule. */
export function settleBy(rule: PayoutRule, deployed: readonly number[], winning: number | null): SettlementTotals {
  return rule === 'returns' ? settleReturns(deployed, winning) : settleRound(deployed, winning);
}
