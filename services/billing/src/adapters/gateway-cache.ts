import { tombstoneKey } from '@gridlab/key-cache';
import type { Logger } from '@gridlab/logger';
import type { Redis } from 'ioredis';

/**
 * Revocation in the gateways' key cache: a tombstone makes every replica answer 401 from
 * the moment it is written. Retried briefly; if Redis stays down the gateways are in
 * their fallback mode, which reads keys from PostgreSQL, where the key is already revoked.
 */
export class GatewayKeyCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  async revoke(keyHash: Buffer): Promise<void> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        await tombstoneKey(this.redis, this.prefix, keyHash);
        return;
      } catch (error) {
        if (attempt === 3) this.logger.error('could not tombstone a revoked key in Redis', { err: error });
        else await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }
}
