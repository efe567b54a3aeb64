import { POSITIVE_TTL_MS, keyCacheKeys } from '@gridlab/key-cache';
import type { Redis } from 'ioredis';
import { decide, type BucketDecision, type BucketPolicy } from '../../domain/token-bucket';
import { DEFAULT_LEASE_POLICY, type LeasePolicy } from '../../domain/token-lease';
import type { GateAnswer, KeyRecord, LeaseCall, SharedGate } from '../../app/ports';
import { gateLua } from './gate.lua';
import { TOKEN_BUCKET_LUA } from './token-bucket.lua';

export interface RedisGateOptions {
  /** Prepended to every key this adapter touches (per deployment or per test run). */
  readonly prefix: string;
  readonly keyPolicy: BucketPolicy;
  readonly sharingWindowMs: number;
  readonly maxAddressesPerKey: number;
  /** The leases the script may grant (maxTokens 0: none). */
  readonly lease?: LeasePolicy;
}

type GateReply = [string, string?, string?, number?, string?, number?, number?, number?];

/**
 * The shared gate in Redis: the key cache, the per-key bucket and the key-sharing tracker
 * in one script call (gate.lua.ts), the per-address bucket of public endpoints, and cache
 * fills. Every call rejects quickly when Redis is slow or down (the client is built with a
 * short command timeout and no offline queue); the request path (app/access.ts) then
 * falls back to PostgreSQL and the in-process buckets.
 */
export class RedisGate implements SharedGate {
  /** Each key hash's Redis key names, held weakly by the hash Buffer the request path memoizes. */
  private readonly names = new WeakMap<Buffer, ReturnType<typeof keyCacheKeys>>();

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisGateOptions,
  ) {
    redis.defineCommand('gridlabGate', {
      numberOfKeys: 4,
      lua: gateLua({ key: options.keyPolicy, sharingWindowMs: options.sharingWindowMs, maxAddressesPerKey: options.maxAddressesPerKey, lease: options.lease ?? DEFAULT_LEASE_POLICY }),
    });
    redis.defineCommand('gridlabBucket', { numberOfKeys: 1, lua: TOKEN_BUCKET_LUA });
  }

  async check(keyHash: Buffer, address: string, cost: number, track: boolean, lease: LeaseCall): Promise<GateAnswer> {
    const keys = this.namesOf(keyHash);
    const reply = (await (this.redis as unknown as GateCommands).gridlabGate(
      keys.auth,
      keys.bucket,
      keys.addresses,
      keys.sharingFlag,
      cost,
      address,
      track ? '1' : '0',
      lease.refund,
      lease.released,
      lease.askLease ? '1' : '0',
    )) as GateReply;
    const [state, subscriberId = '', paidUntil = '0', allowed = 0, tokens = '0', distinct = 0, flagged = 0, leased = 0] = reply;
    if (state === 'miss' || state === 'invalid') return { state };
    if (state === 'expired') return { state, subscriberId, paidUntilMs: Number(paidUntil) };
    return {
      state: 'ok',
      subscriberId,
      paidUntilMs: Number(paidUntil),
      allowed: allowed === 1,
      sharedTokens: Number(tokens),
      leaseTokens: leased,
      distinctAddresses: distinct,
      newlyFlagged: flagged === 1,
    };
  }

  /**
   * Caches a key record PostgreSQL gave, only if nothing is cached yet, so a fill racing
   * a revocation cannot overwrite the revocation's tombstone (revokers write those:
   * `tombstoneKey`).
   */
  async remember(keyHash: Buffer, record: KeyRecord): Promise<void> {
    await this.redis.set(this.namesOf(keyHash).auth, `${record.subscriberId}|${record.paidUntilMs}`, 'PX', POSITIVE_TTL_MS, 'NX');
  }

  async takeForAddress(policy: BucketPolicy, address: string, cost = 1): Promise<BucketDecision> {
    const [allowed, tokens] = (await (this.redis as unknown as GateCommands).gridlabBucket(`${this.options.prefix}ip:${address}`, policy.capacity, policy.refillPerSecond, cost)) as [number, string];
    return decide(policy, Number(tokens), allowed === 1, cost);
  }

  private namesOf(keyHash: Buffer): ReturnType<typeof keyCacheKeys> {
    let names = this.names.get(keyHash);
    if (names === undefined) {
      names = keyCacheKeys(this.options.prefix, keyHash);
      this.names.set(keyHash, names);
    }
    return names;
  }
}

/** The script commands registered by `defineCommand` (ioredis adds them at run time). */
interface GateCommands {
  gridlabGate(...args: (string | number)[]): Promise<unknown>;
  gridlabBucket(...args: (string | number)[]): Promise<unknown>;
}
