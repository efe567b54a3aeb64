import { ROUND_LEN_CURRENT } from './ore-layout';
import type { RoundAccount } from './round.codec';
import { winningSquare } from './rng';
import { settleReturns, settleRound, type PayoutRule } from './settlement';

/** The rule that settled a round, or why none could be told from the account. */
export type RuleInference =
  | { readonly ok: true; readonly rule: PayoutRule; readonly basis: RuleBasis }
  | { readonly ok: false; readonly reason: 'no_rule_matches'; readonly detail: string };

/**
 * What decided the rule: the account's layout (v3), its totals, the nearest earlier
 * round (a voided or empty round pays alike under every rule), or, with no earlier round
 * known, the program's current rule.
 */
export type RuleBasis = 'layout' | 'totals' | 'earlier_round' | 'current_program';

/**
 * Decides which payout rule settled a round (SPEC 3):
 * - v3 accounts (560/568 bytes) are `parimutuel`: the program had no other rule;
 * - a settled 952-byte round is whichever rule reproduces both its `total_winnings` and
 *   its `total_vaulted` from its own `deployed` (a cross-check of two totals);
 * - a voided 952-byte round, or one where no SOL was deployed (every rule writes the
 *   same zeros), pays the same under every rule and takes the rule of the nearest
 *   earlier settled round, `previous`, or with none known the program's current rule
 *   (the label then changes no figure: such a round refunds or pays nothing under both).
 * A round that neither rule reproduces is reported, never stored under a guess.
 */
export function inferPayoutRule(account: RoundAccount, previous: PayoutRule | null): RuleInference {
  if (account.layout !== ROUND_LEN_CURRENT) return { ok: true, rule: 'parimutuel', basis: 'layout' };
  const winner = winningSquare(account.slotHash);
  const deployedSum = account.deployed.reduce((a, b) => a + b, 0);
  if (winner === null || deployedSum === 0) {
    return previous === null ? { ok: true, rule: 'returns', basis: 'current_program' } : { ok: true, rule: previous, basis: 'earlier_round' };
  }
  const matched = ruleFromTotals(account.deployed, winner, account.totalWinnings, account.totalVaulted);
  if (matched !== null) return { ok: true, rule: matched, basis: 'totals' };
  const parimutuel = settleRound(account.deployed, winner);
  const returns = settleReturns(account.deployed, winner);
  return {
    ok: false,
    reason: 'no_rule_matches',
    detail:
      `round ${account.id}: total_winnings ${account.totalWinnings} / total_vaulted ${account.totalVaulted} match neither ` +
      `parimutuel (${parimutuel.totalWinnings} / ${parimutuel.totalVaulted}) nor returns (${returns.totalWinnings} / ${returns.totalVaulted})`,
  };
}

/**
 * The rule whose arithmetic reproduces both totals of a settled round from its deployed
 * SOL and winning square, or null when neither does. (`returns` is checked first: the
 * two agree only when nothing was deployed, which callers treat apart.)
 */
export function ruleFromTotals(deployed: readonly number[], winner: number, totalWinnings: number, totalVaulted: number): PayoutRule | null {
  const matches = (t: { totalWinnings: number; totalVaulted: number }) => t.totalWinnings === totalWinnings && t.totalVaulted === totalVaulted;
  if (matches(settleReturns(deployed, winner))) return 'returns';
  if (matches(settleRound(deployed, winner))) return 'parimutuel';
  return null;
}
