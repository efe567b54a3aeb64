/**
 * What a firing says: the JSON payload posted as is by a `standard` target, relayed over
 * server-sent events, and summarized for Discord and Slack. Every payload starts with
 * `{ type: 'alert.<kind>', ruleId, roundId }`; `roundId` is null only for an event-log
 * event that belongs to no round (tier, subscription).
 */
import type { LogEvent } from '@gridlab/contracts';
import type { DecisionReason } from '@gridlab/strategy';
import type { RuleKind, WalletTrigger } from './rules';

interface Head<K extends RuleKind> {
  readonly type: `alert.${K}`;
  readonly ruleId: string;
  readonly roundId: number;
}

/** The pool reached the rule's bar (once per climb: see the README). */
interface MotherlodeAlert extends Head<'motherlode'> {
  /** The rule's bar, whole ORE. */
  readonly minOre: number;
  /** The pool, ORE base units (1 ORE = 10^11). */
  readonly poolBaseUnits: number;
}

/** One square that met the bar, and what it returns per SOL. */
export interface SquareEvHit {
  readonly square: number;
  /** Rounded to 6 decimals, as GET /live/ev shows it. */
  readonly evPerSol: number;
  /** Lamports already on the square. */
  readonly deployedLamports: number;
}

/** Squares whose EV per SOL met the bar, best first (ties: lower square first). */
export interface SquareEvAlert extends Head<'square_ev'> {
  readonly slot: number;
  readonly slotsLeft: number;
  readonly minEvPerSol: number;
  readonly stakeLamports: number;
  readonly orePriceLamports: number;
  /** Where the price came from, as GET /live/ev says it. */
  readonly orePriceSource: 'caller' | 'productionCost' | 'none';
  readonly squares: readonly SquareEvHit[];
}

/** A watched wallet did what the rule watches for. */
export interface WalletAlert extends Head<'wallet'> {
  readonly address: string;
  readonly on: WalletTrigger;
  /** `ledger`: the miner ledger's row of the settled round; `deploys`: the live deploys seen (and the settled round). */
  readonly source: 'ledger' | 'deploys';
  /** Squares it held (from a live deploy: that deploy's); null where the chain does not show them. */
  readonly squares: readonly number[] | null;
  /** Lamports it staked (from a live deploy: that deploy's); null where not known. */
  readonly deployedLamports: number | null;
  /** The round's winning square once it settled; null for a deploy, a voided round, or ledger rows of a round the notifier did not see settle. */
  readonly winningSquare: number | null;
  /** ORE base units it took: the top-miner reward or the motherlode share, when the ledger shows it; else null. */
  readonly ore: number | null;
}

/** An event of the log passed the rule's kind and filters. */
interface EventAlert extends Omit<Head<'event'>, 'roundId'> {
  readonly roundId: number | null;
  /** The event as the log carries it (GET /events). */
  readonly event: LogEvent;
}

/** A strategy's decision for the round now open, as the forward test records it. */
export interface StrategySignalAlert extends Head<'strategy_signal'> {
  readonly strategyId: string;
  readonly bet: boolean;
  /** Why it bets or sits the round out (`bet`, `filtered`, `cooldown`, ...). */
  readonly reason: DecisionReason;
  /** Squares it bets, with `stakesLamports` in the same order; empty when it does not bet. */
  readonly squares: readonly number[];
  readonly stakesLamports: readonly number[];
  readonly totalLamports: number;
}

export type AlertPayload = MotherlodeAlert | SquareEvAlert | WalletAlert | EventAlert | StrategySignalAlert;

/** One firing: deliver `payload` once per `dedupKey` (a key seen before is dropped, not sent again). */
export interface Firing {
  readonly ruleId: string;
  readonly dedupKey: string;
  readonly payload: AlertPayload;
}

/**
 * Natural keys: the same occurrence always gets the same key, whichever input reported
 * it or how often, so a unique key in the outbox makes redeliveries and restarts harmless.
 */
export const dedupKeys = {
  /** Once per round at most; a new climb after the pool fell below the bar fires again. */
  motherlode: (ruleId: string, roundId: number): string => `${ruleId}:motherlode:${roundId}`,
  /** Once per round, whichever squares and however many snapshots. */
  squareEv: (ruleId: string, roundId: number): string => `${ruleId}:square_ev:${roundId}`,
  /** Once per wallet, round and trigger, from a live deploy or from the ledger alike. */
  wallet: (ruleId: string, roundId: number, address: string, on: WalletTrigger): string => `${ruleId}:wallet:${roundId}:${address}:${on}`,
  /** Once per event of the log (ids are never reused). */
  event: (ruleId: string, eventId: number): string => `${ruleId}:event:${eventId}`,
  /** One decision per strategy and round. */
  strategySignal: (ruleId: string, roundId: number): string => `${ruleId}:strategy_signal:${roundId}`,
} as const;
