/**
 * Event shapes of the log (SPEC 6). The domain derives *candidate* events: the body the
 * wire carries after `{ id, ts }`, the timestamp, and a natural deduplication key. The
 * log assigns `id` on append; a candidate whose `dedupKey` is already in the log is
 * dropped, so replaying a round or a fact never appends twice.
 */

import type { EventKind } from '@gridlab/contracts';

export type { EventKind };

/** The winning square had not won for at least the drought threshold of rounds. */
interface DroughtBrokenBody {
  readonly kind: 'drought_broken';
  readonly grid: number;
  /** Non-voided settled rounds between the square's previous win and this round. */
  readonly drought: number;
  readonly roundId: number;
}

/** The round's totalDeployed reached the multiplier times the recent median. */
interface BigRoundBody {
  readonly kind: 'big_round';
  readonly roundId: number;
  readonly deployedSol: number;
  /** multiplier setting x median, in SOL: the bar this round cleared. */
  readonly thresholdSol: number;
  /** totalDeployed / median of the window. */
  readonly multiplier: number;
  readonly winningSquare: number;
  readonly totalMiners: number;
}

/** The same square won `length` consecutive non-voided settled rounds. */
interface StreakBody {
  readonly kind: 'streak';
  readonly grid: number;
  readonly length: number;
  readonly roundId: number;
}

/** The round hit the motherlode: its winning square's miners shared the pool. */
interface MotherlodeBody {
  readonly kind: 'motherlode';
  readonly roundId: number;
  readonly winningSquare: number;
  /** ORE paid out of the pool, base units (1 ORE = 10^11). */
  readonly oreAmount: number;
}

type MilestoneMetric = 'rounds' | 'deployedSol';

/** A round id divisible by the modulus settled, or cumulative deployed SOL passed a step. */
interface MilestoneBody {
  readonly kind: 'milestone';
  readonly metric: MilestoneMetric;
  /** The round id (metric rounds) or the multiple of the SOL step reached (deployedSol). */
  readonly value: number;
  readonly roundId: number;
}

export type TierDirection = 'up' | 'down';

/** The active subscription count crossed a pricing threshold. */
export interface TierBody {
  readonly kind: 'tier';
  readonly activeSubs: number;
  /** Monthly price at the new count. */
  readonly tokenNow: number;
  readonly direction: TierDirection;
}

export type SubscriptionAction = 'activated' | 'renewed' | 'expired';
/** `grant`: an operator granted the period without a payment. */
export type SubscriptionPlan = 'monthly' | 'annual' | 'grant';

/** A subscription changed state; deliberately without the wallet key. */
interface SubscriptionBody {
  readonly kind: 'subscription';
  readonly action: SubscriptionAction;
  readonly plan: SubscriptionPlan;
  readonly activeSubs: number;
}

export type RoundEventBody = DroughtBrokenBody | BigRoundBody | StreakBody | MotherlodeBody | MilestoneBody;
export type BillingEventBody = TierBody | SubscriptionBody;
type EventBody = RoundEventBody | BillingEventBody;

/** An event the log should hold once: on the wire it becomes `{ id, ts, ...body }`. */
export interface DerivedEvent<B extends EventBody = EventBody> {
  /** Natural key of the occurrence; the log keeps at most one event per key. */
  readonly dedupKey: string;
  /** When it happened: the round's settledAt or the fact's ts (never the clock). */
  readonly ts: string;
  readonly body: B;
}

/** Natural keys. Round kinds fire at most once per round; milestones once per value. */
export const dedupKeys = {
  droughtBroken: (roundId: number): string => `drought_broken:${roundId}`,
  bigRound: (roundId: number): string => `big_round:${roundId}`,
  streak: (roundId: number): string => `streak:${roundId}`,
  motherlode: (roundId: number): string => `motherlode:${roundId}`,
  roundsMilestone: (roundId: number): string => `milestone:rounds:${roundId}`,
  deployedSolMilestone: (sol: number): string => `milestone:deployedSol:${sol}`,
  subscription: (factId: string): string => `subscription:${factId}`,
  tier: (factId: string): string => `tier:${factId}`,
} as const;

