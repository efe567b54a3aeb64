import { SQUARES } from './ore-layout';

/** How a settled round paid its miners (SPEC 3). */
export type PayoutRule = 'parimutuel' | 'returns';

/** Totals the reset writes into a round account. */
export interface SettlementTotals {
  readonly totalDeployed: number;
  /** Lamports the reset sends to the admin fee collector. */
  readonly adminFee: number;
  readonly totalVaulted: number;
  readonly totalWinnings: number;
}

function sumOf(deployed: readonly number[]): number {
  if (deployed.length !== SQUARES) throw new RangeError(`deployed must have ${SQUARES} entries`);
  let total = 0;
  for (const d of deployed) total += d;
  // u64 sums of mainnet rounds stay far below 2^53 (9e6 SOL); a larger one would round.
  if (!Number.isSafeInteger(total)) throw new RangeError('deployed sums past 2^53 lamports');
  return total;
}

/**
 * The `parimutuel` rule (v3, and 952-byte rounds until 2026-08-12), as the program's reset
 * computes it in integer arithmetic (regolith-labs/ore `program/src/reset.rs` at 3112ab7,
 * lines 133-186; the same since v3):
 * - `total_admin_fee = total / 100` goes to the fee collector;
 * - nobody on the winning square: `total_vaulted = total - total / 100`, `total_winnings = 0`;
 * - else, with `L` the SOL on the other squares: `w = L - L / 100`, `vault = w / 10`,
 *   `total_winnings = w - vault`, `total_vaulted = vault`.
 * (`w - w/10` is not `floor(w * 9/10)`, nor `L - L/100` `floor(L * 99/100)`: they differ
 * by a lamport whenever the division leaves a remainder.) A voided round (no winning
 * square) refunds everything and writes no totals.
 */
export function settleRound(deployed: readonly number[], winning: number | null): SettlementTotals {
  const total = sumOf(deployed);
  if (winning === null) return { totalDeployed: total, adminFee: 0, totalVaulted: 0, totalWinnings: 0 };
  const adminFee = Math.floor(total / 100);
  const onWinner = deployed[winning] ?? 0;
  if (onWinner === 0) return { totalDeployed: total, adminFee, totalVaulted: total - adminFee, totalWinnings: 0 };
  const losing = total - onWinner;
  const afterFee = losing - Math.floor(losing / 100);
  const vault = Math.floor(afterFee / 10);
  return { totalDeployed: total, adminFee, totalVaulted: vault, totalWinnings: afterFee - vault };
}

/**
 * The `returns` rule (since 2026-08-12, "remove parimutuel"), as the program's reset
 * computes it (`api/src/state/round.rs` `calculate_fees` and `program/src/reset.rs` at
 * 70763fc): per square with `t = deployed > 0`, `admin = max(1, t / 100)`; every square but
 * the winning one adds `protocol = max(1, (t - admin) / 10)` (saturating, and not capped:
 * a 1-lamport losing square vaults a lamport it does not have). `total_vaulted` is the
 * protocol fees and `total_winnings` (the program's `total_returned_sol`) is
 * `total - admin - protocol`, saturating at 0. A voided round refunds everything: the
 * program then zeroes `deployed` and writes the refund as `total_winnings` (see
 * `encodeRound`).
 */
export function settleReturns(deployed: readonly number[], winning: number | null): SettlementTotals {
  const total = sumOf(deployed);
  if (winning === null) return { totalDeployed: total, adminFee: 0, totalVaulted: 0, totalWinnings: total };
  let admin = 0;
  let protocol = 0;
  for (let s = 0; s < SQUARES; s++) {
    const t = deployed[s]!;
    if (t <= 0) continue;
    const a = Math.max(1, Math.floor(t / 100));
    admin += a;
    if (s !== winning) protocol += Math.max(1, Math.floor((t - a) / 10));
  }
  return { totalDeployed: total, adminFee: admin, totalVaulted: protocol, totalWinnings: Math.max(0, total - admin - protocol) };
}

/** Totals of a round under a rule. */
export function settleBy(rule: PayoutRule, deployed: readonly number[], winning: number | null): SettlementTotals {
  return rule === 'returns' ? settleReturns(deployed, winning) : settleRound(deployed, winning);
}
