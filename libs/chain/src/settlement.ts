/**
 * The program's settlement, in one module: what a reset writes into a round (the totals,
 * under each payout rule) and what a checkpoint pays one miner. The rebuild, the rule
 * inference and the expected value use it; the Strategy Lab's engine has its own fast
 * form of the per-miner payout, which its tests hold equal to this one.
 */
import type { PayoutRule } from '@gridlab/contracts';
import { SQUARES } from './ore-layout';

export type { PayoutRule };

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

const TWO_52 = 2 ** 52;
const TWO_50 = 2 ** 50;
const TWO_MINUS_51 = 2 ** -51;

/**
 * `floor(stake * amount / total)`, the program's pro-rata share (u128 products), exactly:
 * a product below 2^52 is exact and its correctly rounded quotient cannot reach the next
 * integer; past it the double quotient `x` (two roundings) is within `x * 2^-52` of the
 * true one, so when its fraction is farther than `x * 2^-51` from an integer its floor is
 * the true floor; otherwise BigInt decides. Nearly every live share takes a double path.
 */
export function share(stake: number, amount: number, total: number): number {
  if (total === 0) return 0;
  const p = stake * amount;
  if (p < TWO_52) return Math.floor(p / total);
  const x = p / total;
  const q = Math.floor(x);
  const margin = x * TWO_MINUS_51;
  if (x < TWO_50 && x - q > margin && x - q < 1 - margin) return q;
  return Number((BigInt(stake) * BigInt(amount)) / BigInt(total));
}

/**
 * Lamports the stake `x` on `square` gets back when `winner` wins, with the other squares
 * as in `deployed` (ours added to `square`), as the program's checkpoint pays a miner.
 * `returns` (`program/src/checkpoint.rs` at 70763fc): on a square holding `T`,
 * `admin = max(1, T/100)`; the winning square returns `T - admin`, any other also keeps
 * `protocol = max(1, (T - admin)/10)` (saturating); the miner gets its pro-rata share.
 * `parimutuel` (`checkpoint.rs` and `reset.rs` at 3112ab7): the winning square's miners
 * get their stake back less `max(1, x/100)` plus their share of `total_winnings`
 * (`w = L - L/100`, `total_winnings = w - w/10` of the other squares' SOL `L`); a
 * losing square's miners get nothing.
 */
export function solBack(rule: PayoutRule, deployed: readonly number[], square: number, x: number, winner: number): number {
  const total = deployed[square]! + x;
  if (rule === 'returns') {
    const admin = Math.max(1, Math.floor(total / 100));
    if (winner === square) return share(x, total - admin, total);
    const protocol = Math.max(1, Math.floor((total - admin) / 10));
    return share(x, Math.max(0, total - admin - protocol), total);
  }
  if (winner !== square) return 0;
  let losing = 0;
  for (let s = 0; s < SQUARES; s++) if (s !== square) losing += deployed[s]!;
  const afterFee = losing - Math.floor(losing / 100);
  const winnings = afterFee - Math.floor(afterFee / 10);
  return x - Math.max(1, Math.floor(x / 100)) + share(x, winnings, total);
}
