import { revocationChannel } from '@gridlab/key-cache';
import type { Logger } from '@gridlab/logger';
import type { Redis } from 'ioredis';

const KEY_HASH_HEX = /^[0-9a-f]{64}$/;

/**
 * Follows the tombstones revokers announce in Redis (billing, `gridlab admin revoke`):
 * each revoked key's HMAC is handed to `onRevoked` as the tombstone lands, so a key this
 * replica serves from memory (a lease of its tokens) is refused from the next request.
 * On its own connection (a subscribed connection runs no other commands), which
 * resubscribes by itself after Redis comes back; a revocation missed meanwhile still
 * takes effect when the lease ends. Returns the stop function.
 */
export function followTombstones(redis: Redis, prefix: string, onRevoked: (keyHashHex: string) => void, logger: Logger): () => void {
  const channel = revocationChannel(prefix);
  // Queue the SUBSCRIBE until connected and keep retrying: unlike a request's command, it may wait.
  const subscriber = redis.duplicate({ lazyConnect: true, enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined });
  subscriber.on('error', (error: unknown) => logger.debug('redis subscriber error', { err: error }));
  subscriber.on('message', (from: string, message: string) => {
    if (from === channel && KEY_HASH_HEX.test(message)) onRevoked(message);
  });
  subscriber.connect().catch((error: unknown) => logger.warn('redis not reachable for revocation announcements; leases end on their own', { err: error }));
  subscriber.subscribe(channel).catch((error: unknown) => logger.warn('could not subscribe to revocation announcements', { err: error }));
  return () => subscriber.disconnect();
}
