/**
 * Event shapes of the log (SPEC 6). The domain derives *candidate* events: the body the
 * wire carries after `{ id, ts }`, the timestamp, and a natural deduplication key. The
 * log assigns `id` on append; a candidate whose `dedupKey` is already in the log is
 * dropped, so replaying a round or a fact never appends twice.
 */

import type { EventKind, LogEvent } from '@gridlab/contracts';

export type { EventKind };

/** The wire event of kind `K` without what the log assigns on append (`id`, `ts`). */
type BodyOf<K extends EventKind> = K extends EventKind ? Omit<Extract<LogEvent, { kind: K }>, 'id' | 'ts'> : never;

export type TierBody = BodyOf<'tier'>;
export type TierDirection = TierBody['direction'];
type SubscriptionBody = BodyOf<'subscription'>;
export type SubscriptionAction = SubscriptionBody['action'];
export type SubscriptionPlan = SubscriptionBody['plan'];

export type RoundEventBody = BodyOf<'drought_broken' | 'big_round' | 'streak' | 'motherlode' | 'milestone'>;
export type BillingEventBody = BodyOf<'tier' | 'subscription'>;
/** A correction: the round event `eventId` no longer follows from the stored history. */
export type WithdrawnBody = BodyOf<'withdrawn'>;
type EventBody = RoundEventBody | BillingEventBody | WithdrawnBody;

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
  /** An event is withdrawn at most once. */
  withdrawn: (eventId: number): string => `withdrawn:${eventId}`,
} as const;

