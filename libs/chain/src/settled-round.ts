import type { PayoutRule, Round, RoundSource } from '@gridlab/contracts';
import { toHex } from './bytes';
import { ROUND_LEN_CURRENT } from './ore-layout';
import type { UnknownFigures } from './rebuild-round';
import type { RoundAccount } from './round.codec';
import { winningSquare } from './rng';

/** What the account alone does not say: the round's rule and the board's cost at settlement. */
export interface SettlementContext {
  readonly payoutRule: PayoutRule;
  /** Lamports per whole ORE read from the board when the round settled (952-byte rounds). */
  readonly productionCost: number | null;
  /** Where the round was read (default: its account). */
  readonly source?: RoundSource;
  /** The motherlode pool the round played for, as seen while it was live; null when not seen. */
  readonly motherlodePool?: number | null;
  /** What a round rebuilt from its transactions does not establish (default: everything is known). */
  readonly unknown?: UnknownFigures;
}

/**
 * The stored and wire form of a settled round, from its account after the reset.
 * `totalMiners` falls back to the sum of per-square counts for the 560-byte layout; the
 * ORE fields are null for v3 accounts, which do not carry them.
 */
export function toSettledRound(account: RoundAccount, settledAt: Date, context: SettlementContext): Round {
  const current = account.layout === ROUND_LEN_CURRENT;
  const unknown = context.unknown;
  if (unknown !== undefined && (unknown.deployed !== 0 || unknown.count !== 0 || unknown.totalMiners)) {
    return {
      ...toSettledRound(account, settledAt, { payoutRule: context.payoutRule, productionCost: context.productionCost, motherlodePool: context.motherlodePool ?? null, source: 'transactions_partial' }),
      deployed: account.deployed.map((v, s) => ((unknown.deployed >>> s) & 1 ? null : v)),
      count: account.count.map((v, s) => ((unknown.count >>> s) & 1 ? null : v)),
      totalMiners: unknown.totalMiners ? null : account.totalMiners,
    };
  }
  return {
    id: account.id,
    deployed: [...account.deployed],
    count: [...account.count],
    winningSquare: winningSquare(account.slotHash),
    totalDeployed: account.totalDeployed,
    totalWinnings: account.totalWinnings,
    totalVaulted: account.totalVaulted,
    totalMiners: account.totalMiners ?? account.count.reduce((a, b) => a + b, 0),
    motherlode: account.motherlode,
    topMinerReward: account.topMinerReward,
    slotHash: toHex(account.slotHash),
    settledAt: settledAt.toISOString(),
    payoutRule: context.payoutRule,
    oreReward: current ? account.topMinerReward : null,
    topMiner: current ? account.topMiner : null,
    split: current ? account.split : null,
    productionCost: current ? context.productionCost : null,
    source: context.source ?? 'account',
    // A round that hit the motherlode paid out exactly the pool it played for.
    motherlodePool: account.motherlode > 0 ? account.motherlode : (context.motherlodePool ?? null),
  };
}
