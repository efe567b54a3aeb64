import { UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { Redis } from 'ioredis';
import type { SessionDenylist, SiwsNonces } from '../../app/ports';

/**
 * Signed-out dashboard session ids in Redis, each kept until its token would have expired
 * anyway (shared by every gateway replica). When Redis cannot answer, a check fails open:
 * the cookie is HttpOnly, SameSite=Strict and short-lived, and the browser that signed out
 * has dropped it.
 */
export class RedisSessionDenylist implements SessionDenylist {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  private key(sid: string): string {
    return `${this.prefix}session:denied:${sid}`;
  }

  async deny(sid: string, untilMs: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(untilMs - this.now()));
    await this.redis.set(this.key(sid), '1', 'PX', ttl);
  }

  async isDenied(sid: string): Promise<boolean> {
    try {
      return (await this.redis.exists(this.key(sid))) === 1;
    } catch (error) {
      this.logger.warn('session denylist unavailable; session accepted', { err: error });
      return false;
    }
  }
}

/**
 * Used sign-in nonces in Redis (shared by every replica), each kept until its message
 * expires: SET NX consumes one atomically, so of two sign-ins with one message, one wins.
 * When Redis cannot answer, the sign-in is refused (it throws): a replay must never pass.
 */
export class RedisSiwsNonces implements SiwsNonces {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(nonce: string, untilMs: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(untilMs - this.now()));
    try {
      return (await this.redis.set(`${this.prefix}siws:used:${nonce}`, '1', 'PX', ttl, 'NX')) === 'OK';
    } catch (error) {
      throw new UnavailableError('wallet sign-in is unavailable for a moment; sign in with an API key or try again', { cause: error });
    }
  }
}
