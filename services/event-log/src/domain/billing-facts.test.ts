import { ConfigError, DecodeError } from '@gridlab/errors';
import {
  DEFAULT_PRICING_LADDER,
  deriveFactEvents,
  priceAt,
  tierCrossing,
  tierFactEvent,
  validatePricingLadder,
  type SubscriptionFact,
} from './billing-facts';

const TS = '2026-03-01T12:00:00.000Z';

function fact(factId: string, action: SubscriptionFact['action'], activeSubs: number, plan: SubscriptionFact['plan'] = 'monthly'): SubscriptionFact {
  return { factId, action, plan, activeSubs, ts: TS };
}

describe('pricing ladder', () => {
  it('prices each step of the default ladder', () => {
    expect([0, 99, 100, 249, 250, 499, 500, 10_000].map((n) => priceAt(n))).toEqual([0.1, 0.1, 0.2, 0.2, 0.4, 0.4, 0.8, 0.8]);
  });

  it('sees a crossing only when the step changes', () => {
    expect(tierCrossing(99, 100)).toEqual({ kind: 'tier', activeSubs: 100, tokenNow: 0.2, direction: 'up' });
    expect(tierCrossing(250, 249)).toEqual({ kind: 'tier', activeSubs: 249, tokenNow: 0.2, direction: 'down' });
    expect(tierCrossing(100, 101)).toBeNull();
    expect(tierCrossing(98, 99)).toBeNull();
    expect(tierCrossing(120, 120)).toBeNull();
  });

  it('reports a jump over several thresholds as one change to the new price', () => {
    expect(tierCrossing(90, 300)).toEqual({ kind: 'tier', activeSubs: 300, tokenNow: 0.4, direction: 'up' });
    expect(tierCrossing(600, 0)).toEqual({ kind: 'tier', activeSubs: 0, tokenNow: 0.1, direction: 'down' });
  });

  it('validates a ladder and lists every problem', () => {
    expect(validatePricingLadder(DEFAULT_PRICING_LADDER)).toBe(DEFAULT_PRICING_LADDER);
    let caught: unknown;
    try {
      validatePricingLadder({ thresholds: [10, 10, 0.5], prices: [1, -2] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).errors?.map((e) => e.path)).toEqual(['/thresholds/1', '/thresholds/2', '/prices', '/prices/1']);
  });
});

describe('deriveFactEvents', () => {
  it('maps every fact to a subscription event keyed by its id, leaving out who subscribed', () => {
    const published = { ...fact('f-1', 'renewed', 42, 'annual'), subscriberId: 'sub_x', paidUntil: TS };
    expect(deriveFactEvents(published, 42)).toEqual([
      { dedupKey: 'subscription:f-1', ts: TS, body: { kind: 'subscription', action: 'renewed', plan: 'annual', activeSubs: 42 } },
    ]);
    expect(deriveFactEvents(fact('f-0', 'renewed', 42, 'grant'), 42).map((e) => e.body)).toEqual([
      { kind: 'subscription', action: 'renewed', plan: 'grant', activeSubs: 42 },
    ]);
  });

  it('adds a tier event when an activation reaches a threshold', () => {
    expect(deriveFactEvents(fact('f-2', 'activated', 100), 99)).toEqual([
      { dedupKey: 'subscription:f-2', ts: TS, body: { kind: 'subscription', action: 'activated', plan: 'monthly', activeSubs: 100 } },
      { dedupKey: 'tier:f-2', ts: TS, body: { kind: 'tier', activeSubs: 100, tokenNow: 0.2, direction: 'up' } },
    ]);
  });

  it('adds a downward tier event when an expiry drops below a threshold', () => {
    const events = deriveFactEvents(fact('f-3', 'expired', 499), 500);
    expect(events.map((e) => e.body)).toEqual([
      { kind: 'subscription', action: 'expired', plan: 'monthly', activeSubs: 499 },
      { kind: 'tier', activeSubs: 499, tokenNow: 0.4, direction: 'down' },
    ]);
    expect(events.map((e) => e.dedupKey)).toEqual(['subscription:f-3', 'tier:f-3']);
  });

  it('follows a custom ladder', () => {
    const ladder = { thresholds: [2], prices: [1, 3] };
    expect(deriveFactEvents(fact('f-4', 'activated', 2), 1, ladder).map((e) => e.body.kind)).toEqual(['subscription', 'tier']);
    expect(deriveFactEvents(fact('f-5', 'activated', 100), 99, ladder).map((e) => e.body.kind)).toEqual(['subscription']);
  });

  it('derives the same events when the same fact is replayed against the same baseline', () => {
    const f = fact('f-6', 'activated', 250);
    expect(deriveFactEvents(f, 249)).toEqual(deriveFactEvents(f, 249));
  });

  it('rejects a malformed fact', () => {
    expect(() => deriveFactEvents(fact('', 'activated', 1), 0)).toThrow(DecodeError);
    expect(() => deriveFactEvents({ ...fact('f-7', 'activated', 1), action: 'paused' as never }, 0)).toThrow(/action/);
    expect(() => deriveFactEvents(fact('f-8', 'activated', -1), 0)).toThrow(/activeSubs/);
    expect(() => deriveFactEvents(fact('f-9', 'activated', 1), 1.5)).toThrow(/previous activeSubs/);
  });
});

describe('tierFactEvent', () => {
  it('maps a published tier fact to a tier event keyed by its id', () => {
    expect(tierFactEvent({ factId: 't-1', activeSubs: 250, tokenNow: 0.4, direction: 'up', ts: TS })).toEqual({
      dedupKey: 'tier:t-1',
      ts: TS,
      body: { kind: 'tier', activeSubs: 250, tokenNow: 0.4, direction: 'up' },
    });
  });

  it('rejects a malformed tier fact', () => {
    expect(() => tierFactEvent({ factId: 't-2', activeSubs: 1, tokenNow: 0.1, direction: 'sideways' as never, ts: TS })).toThrow(/direction/);
    expect(() => tierFactEvent({ factId: 't-3', activeSubs: 1, tokenNow: Number.NaN, direction: 'up', ts: TS })).toThrow(DecodeError);
  });
});
