import { decodeEvent, type NatsConnection } from '@gridlab/bus';
import type { EventName, EventPayload, NatsNames } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';

/** Follows one core NATS subject of billing's announcements, each message validated; returns the unsubscribe function. */
function follow<K extends EventName>(nc: NatsConnection, names: NatsNames, name: K, onMessage: (message: EventPayload<K>) => void, what: string, logger: Logger): () => void {
  const sub = nc.subscribe(names.subjects[name], {
    callback: (error, msg) => {
      if (error !== null) {
        logger.warn(`${what} subscription error`, { err: error });
        return;
      }
      try {
        onMessage(decodeEvent(name, msg.data));
      } catch (failure) {
        logger.warn(`ignoring an invalid ${what} message`, { err: failure });
      }
    },
  });
  return () => sub.unsubscribe();
}

/**
 * Follows `access.key.revoked` (billing's revocation outbox): each revoked key's HMAC
 * is handed to `onRevoked` at once. Returns the unsubscribe function.
 */
export function followRevocations(nc: NatsConnection, names: NatsNames, onRevoked: (keyHashHex: string) => void, logger: Logger): () => void {
  return follow(nc, names, 'keyRevoked', (revoked) => onRevoked(revoked.keyHash), 'revocation', logger);
}

/**
 * Follows `access.session.ended` (billing, after a sign-out's commit): each subscriber's
 * new session epoch is handed to `onEnded` at once. Returns the unsubscribe function.
 */
export function followSessionEnds(nc: NatsConnection, names: NatsNames, onEnded: (subscriberId: string, epoch: number) => void, logger: Logger): () => void {
  return follow(nc, names, 'sessionEnded', (ended) => onEnded(ended.subscriberId, ended.epoch), 'session-end', logger);
}
