/**
 * The billing kinds of SPEC 6 (subscription, tier) from the facts billing publishes.
 *
 * subscription: one event per subscription fact, keyed `subscription:<factId>`.
 * tier: two sources are supported and a service must use exactly one of them (their
 * keys differ, so using both would log each crossing twice):
 * - `deriveFactEvents` computes the crossing from the count before and after a
 *   subscription fact (key `tier:<subscription factId>`);
 * - `tierFactEvent` maps a tier fact billing published itself (key `tier:<its factId>`).
 *
 * Pure: the caller supplies the active subscription count that preceded a fact, read
 * from the log itself (the `activeSubs` of the last subscription event, 0 for an empty
 * log), and skips a fact whose `subscription:<factId>` key is already there. That keeps
 * a redelivered fact from moving the baseline backwards, and the dedup keys keep it
 * from appending twice.
 */
import type * as contracts from '@gridlab/contracts';
import { ConfigError, DecodeError, type FieldError } from '@gridlab/errors';
import {
  dedupKeys,
  type BillingEventBody,
  type DerivedEvent,
  type SubscriptionAction,
  type SubscriptionPlan,
  type TierBody,
  type TierDirection,
} from './events';

/** The fields of billing's subscription fact (`billing.subscription.changed`) the log uses. */
export type SubscriptionFact = Pick<contracts.SubscriptionFact, 'factId' | 'action' | 'plan' | 'activeSubs' | 'ts'>;

/** A tier crossing billing published itself (`billing.tier.changed`). */
export type TierFact = contracts.TierFact;

/**
 * The pricing ladder (SPEC 5): `prices[i]` per month while the active count is below
 * `thresholds[i]` and at or above the threshold before it; the last price from the last
 * threshold up.
 */
export interface PricingLadder {
  readonly thresholds: readonly number[];
  readonly prices: readonly number[];
}

export const DEFAULT_PRICING_LADDER: PricingLadder = { thresholds: [100, 250, 500], prices: [0.1, 0.2, 0.4, 0.8] };

const ACTIONS: readonly SubscriptionAction[] = ['activated', 'renewed', 'expired'];
const PLANS: readonly SubscriptionPlan[] = ['monthly', 'annual', 'grant'];
const DIRECTIONS: readonly TierDirection[] = ['up', 'down'];

/** Checks a ladder: ascending positive integer thresholds, one more price than thresholds. */
export function validatePricingLadder(ladder: PricingLadder): PricingLadder {
  const errors: FieldError[] = [];
  const { thresholds, prices } = ladder;
  thresholds.forEach((t, i) => {
    const previous = i === 0 ? 0 : thresholds[i - 1]!;
    if (!Number.isSafeInteger(t) || t <= previous) {
      errors.push({ path: `/thresholds/${i}`, message: 'must be an integer above the previous threshold (and above 0)' });
    }
  });
  if (prices.length !== thresholds.length + 1) {
    errors.push({ path: '/prices', message: `must hold ${thresholds.length + 1} prices (one more than thresholds)` });
  }
  prices.forEach((p, i) => {
    if (!Number.isFinite(p) || p <= 0) errors.push({ path: `/prices/${i}`, message: 'must be a number > 0' });
  });
  if (errors.length > 0) throw new ConfigError('invalid pricing ladder', { errors });
  return ladder;
}

/** Index of the ladder step that applies to `activeSubs` (how many thresholds it reached). */
function tierIndex(activeSubs: number, ladder: PricingLadder = DEFAULT_PRICING_LADDER): number {
  let i = 0;
  while (i < ladder.thresholds.length && activeSubs >= ladder.thresholds[i]!) i++;
  return i;
}

/** Monthly price, in tokens, at `activeSubs` active subscriptions. */
export function priceAt(activeSubs: number, ladder: PricingLadder = DEFAULT_PRICING_LADDER): number {
  const price = ladder.prices[tierIndex(activeSubs, ladder)];
  if (price === undefined) throw new ConfigError('invalid pricing ladder: fewer prices than steps');
  return price;
}

/**
 * The tier event body when going from `previous` to `next` active subscriptions changes
 * the ladder step, else null. A jump over several thresholds is one change of price,
 * so one event carrying the new price.
 */
export function tierCrossing(previous: number, next: number, ladder: PricingLadder = DEFAULT_PRICING_LADDER): TierBody | null {
  const from = tierIndex(previous, ladder);
  const to = tierIndex(next, ladder);
  if (from === to) return null;
  return { kind: 'tier', activeSubs: next, tokenNow: priceAt(next, ladder), direction: to > from ? 'up' : 'down' };
}

/**
 * Candidate events of one fact: its subscription event, then a tier event when the
 * count moved across a threshold. Keys: `subscription:<factId>`, `tier:<factId>`.
 * @throws DecodeError when the fact's fields are out of range.
 */
export function deriveFactEvents(
  fact: SubscriptionFact,
  previousActiveSubs: number,
  ladder: PricingLadder = DEFAULT_PRICING_LADDER,
): DerivedEvent<BillingEventBody>[] {
  checkFact(fact);
  if (!Number.isSafeInteger(previousActiveSubs) || previousActiveSubs < 0) {
    throw new DecodeError('invalid_fact', `fact ${fact.factId}: previous activeSubs is not a non-negative integer`);
  }
  const events: DerivedEvent<BillingEventBody>[] = [
    {
      dedupKey: dedupKeys.subscription(fact.factId),
      ts: fact.ts,
      body: { kind: 'subscription', action: fact.action, plan: fact.plan, activeSubs: fact.activeSubs },
    },
  ];
  const tier = tierCrossing(previousActiveSubs, fact.activeSubs, ladder);
  if (tier !== null) events.push({ dedupKey: dedupKeys.tier(fact.factId), ts: fact.ts, body: tier });
  return events;
}

/**
 * The tier event of a tier fact billing published (the alternative to deriving the
 * crossing from subscription facts; see the file comment). Key `tier:<factId>`.
 * @throws DecodeError when the fact's fields are out of range.
 */
export function tierFactEvent(fact: TierFact): DerivedEvent<TierBody> {
  const bad = (why: string): never => {
    throw new DecodeError('invalid_fact', `tier fact ${String(fact.factId)}: ${why}`);
  };
  if (typeof fact.factId !== 'string' || fact.factId.length === 0) bad('factId is empty');
  if (!Number.isSafeInteger(fact.activeSubs) || fact.activeSubs < 0) bad('activeSubs is not a non-negative integer');
  if (!Number.isFinite(fact.tokenNow) || fact.tokenNow < 0) bad('tokenNow is not a non-negative number');
  if (!DIRECTIONS.includes(fact.direction)) bad('direction is neither up nor down');
  if (typeof fact.ts !== 'string') bad('ts is not a string');
  return {
    dedupKey: dedupKeys.tier(fact.factId),
    ts: fact.ts,
    body: { kind: 'tier', activeSubs: fact.activeSubs, tokenNow: fact.tokenNow, direction: fact.direction },
  };
}

function checkFact(fact: SubscriptionFact): void {
  const bad = (why: string): never => {
    throw new DecodeError('invalid_fact', `subscription fact ${String(fact.factId)}: ${why}`);
  };
  if (typeof fact.factId !== 'string' || fact.factId.length === 0) bad('factId is empty');
  if (!ACTIONS.includes(fact.action)) bad(`action is not one of ${ACTIONS.join(', ')}`);
  if (!PLANS.includes(fact.plan)) bad(`plan is not one of ${PLANS.join(', ')}`);
  if (!Number.isSafeInteger(fact.activeSubs) || fact.activeSubs < 0) bad('activeSubs is not a non-negative integer');
  if (typeof fact.ts !== 'string') bad('ts is not a string');
}
