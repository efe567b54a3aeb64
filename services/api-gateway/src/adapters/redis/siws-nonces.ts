import { UnavailableError } from '@gridlab/errors';
import type { Redis } from 'ioredis';
import type { SiwsNonces } from '../../app/ports';

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
