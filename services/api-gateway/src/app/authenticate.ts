import { API_KEY_RE } from '@gridlab/contracts';
import { AuthError, PaymentRequiredError, RateLimitedError, UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { AuthEvents, CachedKey, KeyGate, KeyLookup, KeyRecord } from './ports';
import { MemoryLimiter } from '../domain/memory-limiter';
import { NegativeCache } from '../domain/negative-cache';
import { KEY_POLICY, type BucketDecision, type BucketPolicy } from '../domain/token-bucket';

/** A caller allowed through, with the RateLimit-* values of its bucket. */
export interface Caller {
  readonly subscriberId: string;
  readonly keyHash: Buffer;
  readonly decision: BucketDecision;
  /** End of the key's paid period (open streams are closed then). */
  readonly paidUntilMs: number;
  /** The client address the request came from (IPv6: its /64). */
  readonly address: string;
}

/** Thrown with the bucket's values so a 429 still carries RateLimit-* headers. */
export class RateLimitedWithDecision extends RateLimitedError {
  constructor(
    readonly decision: BucketDecision,
    detail = 'rate limit of the API key exceeded',
    code = 'rate_limited',
  ) {
    super(detail, decision.retryAfterSeconds, code);
  }
}

/** Limits on callers that fail to authenticate (unauthenticated floods). */
export interface AuthGuardOptions {
  /** Failed authentications allowed per client address (IPv6: per /64); checked before any lookup. */
  readonly failurePolicy: BucketPolicy;
  /** How long a key PostgreSQL did not know is answered 401 without a lookup. */
  readonly negativeTtlMs: number;
  /** Bound of that negative cache (oldest first out). */
  readonly negativeMaxEntries: number;
  /** Keys authenticated within this long keep working while PostgreSQL cannot be asked. */
  readonly positiveTtlMs?: number;
  /** Bound of that positive cache (oldest first out). */
  readonly positiveMaxEntries?: number;
}

const DEFAULT_AUTH_GUARD: AuthGuardOptions = {
  failurePolicy: { capacity: 20, refillPerSecond: 0.5 },
  negativeTtlMs: 30_000,
  negativeMaxEntries: 50_000,
  positiveTtlMs: 60_000,
  positiveMaxEntries: 100_000,
};

const BEARER_RE = /^Bearer\s+(\S+)\s*$/i;
const MAX_MEMO = 50_000;

/**
 * Bearer key → HMAC hash → Redis (key cache, bucket, sharing tracker in one script
 * call) → on a cache miss billing's table, cached for the next request. When Redis is
 * down or slow, keys resolve from PostgreSQL and the in-process limiter applies the
 * same policy (fail-soft).
 */
interface InDoubt {
  pending: number;
  waiters: (() => void)[];
}

export class Authenticator {
  private fallbackActive = false;
  private readonly hashes = new Map<string, Buffer>();
  private readonly failures: MemoryLimiter;
  /** Per client address: checks on their way whose failure would take a token, and who waits for one to end. */
  private readonly inDoubt = new Map<string, InDoubt>();
  private readonly unknown: NegativeCache;
  /**
   * Keys authenticated in the last minute (key hash hex → record), in process: a lookup
   * PostgreSQL cannot answer falls back to it, so callers keep working through a database
   * restart. Emptied of a key at once by its revocation fact (`forget`).
   */
  private readonly recent = new Map<string, { readonly record: KeyRecord; seenAtMs: number }>();
  /** Hex of a key hash, held weakly by the hash Buffer that hashOf memoizes: no string per request. */
  private readonly hexes = new WeakMap<Buffer, string>();

  constructor(
    private readonly gate: KeyGate,
    private readonly keys: KeyLookup,
    private readonly fallback: MemoryLimiter,
    private readonly events: AuthEvents,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly guard: AuthGuardOptions = DEFAULT_AUTH_GUARD,
  ) {
    this.failures = new MemoryLimiter(now);
    this.unknown = new NegativeCache(guard.negativeTtlMs, guard.negativeMaxEntries, now);
  }

  /** A revoked key (billing's `access.key.revoked`): no longer served from process memory. */
  forget(keyHashHex: string): void {
    this.recent.delete(keyHashHex);
    this.gate.forget(keyHashHex);
  }

  private seen(keyHash: Buffer, record: KeyRecord): void {
    let id = this.hexes.get(keyHash);
    if (id === undefined) {
      id = keyHash.toString('hex');
      this.hexes.set(keyHash, id);
    }
    const entry = this.recent.get(id);
    if (entry !== undefined && entry.record.paidUntilMs === record.paidUntilMs && entry.record.subscriberId === record.subscriberId) {
      entry.seenAtMs = this.now();
      return;
    }
    this.recent.delete(id);
    if (this.recent.size >= (this.guard.positiveMaxEntries ?? 100_000)) this.recent.delete(this.recent.keys().next().value as string);
    this.recent.set(id, { record, seenAtMs: this.now() });
  }

  /**
   * An address that has failed too often is refused before anything is looked up (no
   * HMAC, no Redis, no PostgreSQL); every failure (missing, malformed, unknown, revoked
   * key) takes a token from its address's failure bucket. Checks of one address run
   * concurrently only as far as its bucket could pay for all of them failing (see admit).
   */
  async authenticate(authorization: string | undefined, clientAddress: string, cost = 1): Promise<Caller> {
    return this.guarded(clientAddress, () => this.knownGood(authorization), () => this.check(authorization, clientAddress, cost));
  }

  /**
   * A browser session's request: the session names the key by its hash (the browser
   * never holds the key); the same checks as a Bearer key follow, so a revoked or lapsed
   * key ends the session at its next request.
   */
  async authenticateKeyHash(keyHash: Buffer, clientAddress: string, cost = 1): Promise<Caller> {
    return this.guarded(clientAddress, () => this.recentlyGood(keyHash), () => this.checkHash(keyHash, undefined, clientAddress, cost));
  }

  /**
   * Whether the presented key is one this process served in the last minute (found without
   * hashing it: the memo of a key in use), so its check is unlikely to fail.
   */
  private knownGood(authorization: string | undefined): boolean {
    const apiKey = bearerKey(authorization);
    const hash = apiKey === undefined ? undefined : this.hashes.get(apiKey);
    return hash !== undefined && this.recentlyGood(hash);
  }

  private recentlyGood(keyHash: Buffer): boolean {
    const id = this.hexes.get(keyHash);
    const entry = id === undefined ? undefined : this.recent.get(id);
    return entry !== undefined && this.now() - entry.seenAtMs < (this.guard.positiveTtlMs ?? 60_000);
  }

  private async guarded(clientAddress: string, knownGood: () => boolean, check: () => Promise<Caller>): Promise<Caller> {
    const release = await this.admit(clientAddress, knownGood);
    try {
      return await check();
    } catch (error) {
      if (error instanceof AuthError) this.failures.take(this.guard.failurePolicy, clientAddress);
      throw error;
    } finally {
      release();
    }
  }

  /**
   * Admits one check of the address while its failure bucket holds a token for every
   * check of it on its way plus this one; else waits until one of those ends (its
   * failure, if any, taken by then) and asks again; refuses (429) when none is on its way.
   * Peeking alone let a burst of concurrent unknown keys all pass the peek and reach
   * PostgreSQL before the first failure was counted. A key served in the last minute is
   * not in doubt: it needs only a token left (its burst runs concurrently); a burst of a
   * new good key from one address waits its turn until its first request is served.
   */
  private async admit(clientAddress: string, knownGood: () => boolean): Promise<() => void> {
    const policy = this.guard.failurePolicy;
    for (;;) {
      if (knownGood()) {
        if (!this.failures.allows(policy, clientAddress)) {
          throw new RateLimitedWithDecision(this.failures.peek(policy, clientAddress), 'too many failed authentications from this client address; retry later', 'too_many_failed_auths');
        }
        return () => undefined;
      }
      const entry = this.inDoubt.get(clientAddress);
      const pending = entry?.pending ?? 0;
      if (this.failures.allows(policy, clientAddress, pending + 1)) {
        const admitted = entry ?? { pending: 0, waiters: [] };
        admitted.pending++;
        this.inDoubt.set(clientAddress, admitted);
        return () => this.settleDoubt(clientAddress, admitted);
      }
      if (entry === undefined || pending === 0) {
        throw new RateLimitedWithDecision(this.failures.peek(policy, clientAddress), 'too many failed authentications from this client address; retry later', 'too_many_failed_auths');
      }
      await new Promise<void>((resolve) => entry.waiters.push(resolve));
    }
  }

  private settleDoubt(clientAddress: string, entry: InDoubt): void {
    entry.pending--;
    const waiters = entry.waiters;
    entry.waiters = [];
    if (entry.pending === 0 && this.inDoubt.get(clientAddress) === entry) this.inDoubt.delete(clientAddress);
    for (const wake of waiters) wake();
  }

  /**
   * `authenticate` for a key this replica holds a lease of (the common case of a busy
   * key): answered at once from memory, with no promise. Undefined when anything needs
   * a lookup or refusing; `authenticate` then decides.
   */
  authenticateNow(authorization: string | undefined, clientAddress: string, cost = 1): Caller | undefined {
    if (!this.failures.allows(this.guard.failurePolicy, clientAddress)) return undefined;
    const apiKey = bearerKey(authorization);
    if (apiKey === undefined || this.unknown.has(apiKey)) return undefined;
    const keyHash = this.hashOf(apiKey);
    const cached = this.gate.checkLeased(keyHash, clientAddress, cost);
    if (cached === null) return undefined;
    this.seen(keyHash, { subscriberId: cached.subscriberId, paidUntilMs: cached.paidUntilMs });
    return { subscriberId: cached.subscriberId, keyHash, decision: cached.decision, paidUntilMs: cached.paidUntilMs, address: clientAddress };
  }

  private async check(authorization: string | undefined, clientAddress: string, cost: number): Promise<Caller> {
    if (authorization === undefined || authorization === '') throw new AuthError('missing_api_key', 'send Authorization: Bearer <API key>');
    const apiKey = bearerKey(authorization);
    if (apiKey === undefined) throw new AuthError('invalid_api_key', 'the API key is not valid');
    if (this.unknown.has(apiKey)) throw unknownKey();
    return this.checkHash(this.hashOf(apiKey), apiKey, clientAddress, cost);
  }

  /** `apiKey`, when the caller presented one, is remembered briefly if PostgreSQL does not know it. */
  private async checkHash(keyHash: Buffer, apiKey: string | undefined, clientAddress: string, cost: number): Promise<Caller> {
    let cached: CachedKey;
    try {
      cached = await this.gate.check(keyHash, clientAddress, cost);
    } catch (error) {
      return this.withoutRedis(error, apiKey, keyHash, clientAddress, cost);
    }
    if (cached.state === 'miss') {
      const record = await this.resolve(keyHash);
      // Unknown (or revoked long ago): remembered briefly in this process, never in Redis,
      // so random keys cannot fill it. Revocations write their own tombstones.
      if (record === null) {
        if (apiKey !== undefined) this.unknown.add(apiKey);
        throw unknownKey();
      }
      try {
        await this.gate.remember(keyHash, record);
        cached = await this.gate.check(keyHash, clientAddress, cost);
      } catch (error) {
        return this.withoutRedis(error, apiKey, keyHash, clientAddress, cost);
      }
    }
    this.setFallback(false);
    switch (cached.state) {
      case 'miss':
      case 'invalid':
        throw unknownKey();
      case 'expired':
        throw new PaymentRequiredError(`the subscription ended at ${new Date(cached.paidUntilMs).toISOString()}; renew it to use this key`);
      case 'ok':
        if (cached.newlyFlagged) this.events.keySharing(keyHash, cached.subscriberId, cached.distinctAddresses);
        this.seen(keyHash, { subscriberId: cached.subscriberId, paidUntilMs: cached.paidUntilMs });
        if (!cached.decision.allowed) throw new RateLimitedWithDecision(cached.decision);
        return { subscriberId: cached.subscriberId, keyHash, decision: cached.decision, paidUntilMs: cached.paidUntilMs, address: clientAddress };
    }
  }

  /**
   * The key's HMAC, memoized: a polling client presents the same key every second. The
   * memo holds at most MAX_MEMO keys and is dropped whole when full.
   */
  private hashOf(apiKey: string): Buffer {
    let hash = this.hashes.get(apiKey);
    if (hash === undefined) {
      if (this.hashes.size >= MAX_MEMO) this.hashes.clear();
      hash = this.keys.hash(apiKey);
      this.hashes.set(apiKey, hash);
    }
    return hash;
  }

  private async resolve(keyHash: Buffer): Promise<KeyRecord | null> {
    let found;
    try {
      found = await this.keys.lookup(keyHash);
    } catch (error) {
      // PostgreSQL cannot answer: a key seen in the last minute (and not revoked since) keeps working.
      const recent = this.recent.get(keyHash.toString('hex'));
      if (recent !== undefined && this.now() - recent.seenAtMs < (this.guard.positiveTtlMs ?? 60_000)) return recent.record;
      throw new UnavailableError('API keys cannot be checked right now', { cause: error });
    }
    return found === null ? null : { subscriberId: found.subscriberId, paidUntilMs: found.paidUntil.getTime() };
  }

  /** Redis failed or timed out: keys from PostgreSQL, limits from the in-process buckets. */
  private async withoutRedis(error: unknown, apiKey: string | undefined, keyHash: Buffer, address: string, cost: number): Promise<Caller> {
    this.setFallback(true, error);
    const record = await this.resolve(keyHash);
    if (record === null) {
      if (apiKey !== undefined) this.unknown.add(apiKey);
      throw unknownKey();
    }
    if (record.paidUntilMs <= this.now()) {
      throw new PaymentRequiredError(`the subscription ended at ${new Date(record.paidUntilMs).toISOString()}; renew it to use this key`);
    }
    this.seen(keyHash, record);
    const decision = this.fallback.take(KEY_POLICY, keyHash.toString('hex'), cost);
    if (!decision.allowed) throw new RateLimitedWithDecision(decision);
    return { subscriberId: record.subscriberId, keyHash, decision, paidUntilMs: record.paidUntilMs, address };
  }

  private setFallback(active: boolean, error?: unknown): void {
    if (active === this.fallbackActive) return;
    this.fallbackActive = active;
    this.events.redisFallback(active);
    if (active) this.logger.warn('redis unavailable: rate limits fall back to in-process buckets', { err: error });
    else this.logger.info('redis available again: shared rate limits restored');
  }
}

/** The well-formed API key of an `Authorization: Bearer` header, else undefined. */
function bearerKey(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const apiKey = BEARER_RE.exec(authorization)?.[1];
  return apiKey !== undefined && API_KEY_RE.test(apiKey) ? apiKey : undefined;
}

function unknownKey(): AuthError {
  return new AuthError('invalid_api_key', 'the API key is unknown or revoked');
}
