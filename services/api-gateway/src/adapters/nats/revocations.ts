import { decodeMessage, type NatsConnection } from '@gridlab/bus';
import { validateKeyRevoked, type NatsNames } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';

/**
 * Follows `access.key.revoked` (billing's revocation outbox): each revoked key's HMAC
 * is handed to `onRevoked` at once. Returns the unsubscribe function.
 */
export function followRevocations(nc: NatsConnection, names: NatsNames, onRevoked: (keyHashHex: string) => void, logger: Logger): () => void {
  const sub = nc.subscribe(names.subjects.keyRevoked, {
    callback: (error, msg) => {
      if (error !== null) {
        logger.warn('revocation subscription error', { err: error });
        return;
      }
      try {
        onRevoked(decodeMessage(validateKeyRevoked, msg.data).keyHash);
      } catch (failure) {
        logger.warn('ignoring an invalid revocation message', { err: failure });
      }
    },
  });
  return () => sub.unsubscribe();
}
