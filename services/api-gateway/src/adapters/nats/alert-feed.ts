import { decodeEvent, type NatsConnection } from '@gridlab/bus';
import type { AlertFired, NatsNames } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';

/** What the alert streams are told of: each firing the notifier stored. */
export interface AlertFeedListener {
  fired(firing: AlertFired): void;
}

/**
 * `alerts.firing.stored` for this gateway process: one plain subscription (every replica
 * gets every firing; a stream's replay reads the firings from PostgreSQL), each message
 * checked against its contract before the streams see it.
 */
export function followAlertFirings(nc: NatsConnection, names: NatsNames, listener: AlertFeedListener, logger: Logger): () => void {
  const subscription = nc.subscribe(names.subjects.alertFired, {
    callback: (error, msg) => {
      if (error !== null) return;
      let firing: AlertFired;
      try {
        firing = decodeEvent('alertFired', msg.data);
      } catch (e) {
        logger.warn('undecodable alerts.firing.stored ignored', { err: e });
        return;
      }
      listener.fired(firing);
    },
  });
  return () => subscription.unsubscribe();
}
