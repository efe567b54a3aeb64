import type { Logger } from '@gridlab/logger';
import type { Redis } from 'ioredis';
import type { AnalyticsCachePort } from '../../app/ports';

/**
 * Analytics replies in Redis under `<prefix>lab:analytics:<payout revision>:<dsl sha256>:<bucket>` with a
 * TTL, shared by every replica. The cache is an optimisation: when Redis is down a
 * lookup is a miss and a write is skipped (logged at debug, counted by the caller's
 * hit/miss metric), and the request is computed as usual.
 */
export class AnalyticsCache implements AnalyticsCachePort {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly logger: Logger,
  ) {}

  /** The Redis key of a cache key (for tests and operators). */
  redisKey(key: string): string {
    return `${this.prefix}lab:analytics:${key}`;
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return await this.redis.getBuffer(this.redisKey(key));
    } catch (error) {
      this.logger.debug('analytics cache unavailable; computing', { err: error });
      return null;
    }
  }

  async set(key: string, bytes: Uint8Array): Promise<void> {
    try {
      await this.redis.set(this.redisKey(key), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'EX', this.ttlSeconds);
    } catch (error) {
      this.logger.debug('analytics cache unavailable; result not cached', { err: error });
    }
  }
}
