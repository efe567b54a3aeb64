import { encodeEvent, type NatsConnection } from '@gridlab/bus';
import { type NatsNames } from '@gridlab/contracts';
import { tombstoneKey } from '@gridlab/key-cache';
import type { Logger } from '@gridlab/logger';
import type { Redis } from 'ioredis';
import type { BillingRepository } from './billing-repository';

/**
 * Delivers revocations from billing's outbox (`billing.revocations`, written in the
 * revoking transaction): a Redis tombstone makes every gateway replica answer 401 from
 * that moment, then `access.key.revoked` on NATS empties their in-process caches and
 * closes the key's streams. A revocation is marked delivered only once both are done;
 * until then the relay retries it on every pass, so a Redis outage delays a tombstone,
 * never loses it.
 */
export class RevocationRelay {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly nc: NatsConnection,
    private readonly names: NatsNames,
    private readonly repo: BillingRepository,
    private readonly logger: Logger,
  ) {}

  /** Delivers one revocation now (after its commit); on failure the relay retries it. */
  async deliver(keyHash: Buffer, revokedAt: Date): Promise<boolean> {
    try {
      await tombstoneKey(this.redis, this.prefix, keyHash);
      this.nc.publish(this.names.subjects.keyRevoked, encodeEvent('keyRevoked', { keyHash: keyHash.toString('hex'), revokedAt: revokedAt.toISOString() }));
      await this.repo.markRevocationDelivered(keyHash, new Date());
      return true;
    } catch (error) {
      this.logger.warn('revocation not delivered yet; the relay retries it', { err: error });
      return false;
    }
  }

  /** One relay pass over undelivered revocations, oldest first; stops at the first failure. */
  async relay(): Promise<number> {
    let delivered = 0;
    for (const pending of await this.repo.pendingRevocations(500)) {
      if (!(await this.deliver(pending.keyHash, pending.revokedAt))) break;
      delivered++;
    }
    return delivered;
  }
}
