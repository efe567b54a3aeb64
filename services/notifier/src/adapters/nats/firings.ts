import type { StoredFiring } from '@gridlab/alerts-store';
import { encodeEvent, type NatsConnection } from '@gridlab/bus';
import type { AlertFired, NatsNames } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';

/**
 * Publishes stored firings on `alerts.firing.stored` for their owners' alert streams (the
 * gateways). Called after commit; a message lost here is read back from PostgreSQL by a
 * stream that resumes with Last-Event-ID.
 */
export function firingPublisher(nc: NatsConnection, names: NatsNames, logger: Logger): (firings: readonly StoredFiring[]) => void {
  const publish = (firings: readonly StoredFiring[], from: number): void => {
    const to = Math.min(firings.length, from + SLICE);
    for (let i = from; i < to; i++) {
      const f = firings[i]!;
      const message: AlertFired = { subscriberId: f.owner, id: f.id, ruleId: f.ruleId, webhookId: f.webhookId, firedAt: f.firedAt.toISOString(), payload: f.payload as AlertFired['payload'] };
      try {
        nc.publish(names.subjects.alertFired, encodeEvent('alertFired', message));
      } catch (error) {
        // A payload the contract refuses is a bug of the rule's domain: its webhook still goes out.
        logger.warn('firing not published to the alert streams', { err: error, ruleId: f.ruleId, firingId: f.id });
      }
    }
    if (to < firings.length) setImmediate(() => publish(firings, to));
  };
  // Begun a moment later, and a slice per turn of the event loop: the webhooks of the same
  // firings are claimed and posted first (their latency is the one promised).
  return (firings) => void setTimeout(() => publish(firings, 0), PUBLISH_AFTER_MS);
}

/** Firings published in one turn of the event loop (each is checked and encoded: a few microseconds). */
const SLICE = 64;
/** How long after they are stored firings are published: a claim of their deliveries takes a few milliseconds. */
const PUBLISH_AFTER_MS = 20;
