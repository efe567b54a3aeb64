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
  return (firings) => {
    for (const f of firings) {
      const message: AlertFired = { subscriberId: f.owner, id: f.id, ruleId: f.ruleId, webhookId: f.webhookId, firedAt: f.firedAt.toISOString(), payload: f.payload as AlertFired['payload'] };
      try {
        nc.publish(names.subjects.alertFired, encodeEvent('alertFired', message));
      } catch (error) {
        // A payload the contract refuses is a bug of the rule's domain: its webhook still goes out.
        logger.warn('firing not published to the alert streams', { err: error, ruleId: f.ruleId, firingId: f.id });
      }
    }
  };
}
