/**
 * The gateway's request path: how every paid request is let through, top to bottom.
 *
 *  1. Who asks: a Bearer API key, a dashboard session acting for its key (refused once
 *     its subscriber signed out), or a key hash a wallet sign-in found.
 *  2. The address's failure guard: an address that failed too often is refused before
 *     anything is looked up, and checks that could fail wait while its bucket could not
 *     pay for all of them failing.
 *  3. This replica's lease of the key's tokens: a steadily polled key is answered from
 *     memory, unless its address is due to be recorded by the sharing tracker.
 *  4. Otherwise one call of the shared gate (the Redis script): the key cache, the key's
 *     bucket (the ended lease handed back, a new one asked for) and, when due, the
 *     sharing tracker.
 *  5. A key the cache does not know: PostgreSQL, cached for the next request, then 4 again.
 *  6. Redis down or slow: PostgreSQL (or a key served in the last minute, when it cannot
 *     answer either) and the in-process buckets, by the same policy.
 *  7. The answer: the caller with its bucket's RateLimit-* values, or 401, 402, 429, 503.
 *
 * Public endpoints take a token from their address's bucket instead (`admitAddress`).
 */
import { API_KEY_RE } from '@gridlab/contracts';
import { AuthError, PaymentRequiredError, RateLimitedError, UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { AuthEvents, GateAnswer, KeyLookup, KeyRecord, SharedGate } from './ports';
import { MemoryLimiter } from '../domain/memory-limiter';
import { NegativeCache } from '../domain/negative-cache';
import type { Session } from '../domain/session';
import { IP_POLICY, KEY_POLICY, decide, type BucketDecision, type BucketPolicy } from '../domain/token-bucket';
import { DEFAULT_LEASE_POLICY, TokenLeases, type LeasePolicy } from '../domain/token-lease';

/** A caller let through, with the RateLimit-* values of its bucket. */
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

/** What a request presents. */
export type Credential =
  /** The request's `Authorization` header. */
  | { readonly authorization: string | undefined }
  /** A dashboard session, which acts for its key. */
  | { readonly session: Session }
  /** A key found by other means (a wallet's sign-in). */
  | { readonly keyHash: Buffer };

export interface AccessPorts {
  /** The shared key cache, buckets and sharing tracker (Redis: adapters/redis). */
  readonly gate: SharedGate;
  /** Billing's key table (PostgreSQL). */
  readonly keys: KeyLookup;
  /** Whether a dashboard session's subscriber signed out (its session epoch). */
  readonly sessions: { check(session: Session): Promise<void> };
  readonly events: AuthEvents;
}

export interface AccessOptions {
  /** Failed authentications allowed per client address (IPv6: per /64); checked before any lookup. */
  readonly failurePolicy: BucketPolicy;
  /** How long a key PostgreSQL did not know is answered 401 without a lookup. */
  readonly negativeTtlMs: number;
  /** Bound of that negative cache (oldest first out). */
  readonly negativeMaxEntries: number;
  /** Keys authenticated within this long keep working while PostgreSQL cannot be asked. */
  readonly positiveTtlMs: number;
  /** Bound of that positive cache (oldest first out). */
  readonly positiveMaxEntries: number;
  /** Leases of key-bucket tokens held by this replica (maxTokens 0: a Redis call per request). */
  readonly lease: LeasePolicy;
  /** The key-sharing tracker's window: each key/address pair is recorded a few times in it. */
  readonly sharingWindowMs: number;
}

export const DEFAULT_ACCESS: AccessOptions = {
  failurePolicy: { capacity: 20, refillPerSecond: 0.5 },
  negativeTtlMs: 30_000,
  negativeMaxEntries: 50_000,
  positiveTtlMs: 60_000,
  positiveMaxEntries: 100_000,
  lease: DEFAULT_LEASE_POLICY,
  sharingWindowMs: 300_000,
};

/** What the shared gate said of a key, with the lease counted in. */
type Looked = Exclude<GateAnswer, { readonly state: 'ok' }> | Granted;

interface Granted {
  readonly state: 'ok';
  readonly subscriberId: string;
  readonly paidUntilMs: number;
  readonly decision: BucketDecision;
  /** True the first time in a window that the key's address count exceeded the limit. */
  readonly newlyFlagged: boolean;
  readonly distinctAddresses: number;
}

/** Per key hash: its id (the lease's name) and when each client address was last recorded by the tracker. */
interface KeyEntry {
  readonly id: string;
  readonly tracked: Map<string, number>;
}

/** Per client address: checks on their way whose failure would take a token, and who waits for one to end. */
interface InDoubt {
  pending: number;
  waiters: (() => void)[];
}

const BEARER_RE = /^Bearer\s+(\S+)\s*$/i;
/** Presented keys whose HMAC is remembered (dropped whole when full). */
const MAX_MEMO = 50_000;
/**
 * A key/address pair is recorded in the sharing tracker at most this often per process,
 * as a share of the tracker's window: a pair in use is re-recorded long before the window
 * forgets it, and a busy key's requests then touch only the bucket (or its lease). A pair
 * seen for the first time is recorded at once.
 */
const TRACKS_PER_WINDOW = 5;
/** Addresses remembered per key; a key seen from more than this starts over (it is flagged anyway). */
const MAX_TRACKED_ADDRESSES = 1_000;

export class Access {
  private readonly failures: MemoryLimiter;
  private readonly inDoubt = new Map<string, InDoubt>();
  /** Presented keys PostgreSQL did not know, answered 401 without a lookup for a while. */
  private readonly unknown: NegativeCache;
  /** Presented key → its HMAC: a polling client presents the same key every second. */
  private readonly hashes = new Map<string, Buffer>();
  /** Per key hash, held weakly by the Buffer `hashes` memoizes: no string per request. */
  private readonly entries = new WeakMap<Buffer, KeyEntry>();
  /**
   * Keys let through in the last minute (key hash hex → record): a lookup PostgreSQL
   * cannot answer falls back to it, so callers keep working through a database restart.
   * Emptied of a key at once by its revocation (`forget`).
   */
  private readonly recent = new Map<string, { readonly record: KeyRecord; seenAtMs: number }>();
  private readonly leases: TokenLeases;
  private readonly trackEveryMs: number;
  private readonly fallback: MemoryLimiter;
  private fallbackActive = false;

  constructor(
    private readonly ports: AccessPorts,
    private readonly logger: Logger,
    private readonly options: AccessOptions = DEFAULT_ACCESS,
    private readonly now: () => number = Date.now,
  ) {
    this.failures = new MemoryLimiter(now);
    this.fallback = new MemoryLimiter(now);
    this.unknown = new NegativeCache(options.negativeTtlMs, options.negativeMaxEntries, now);
    this.leases = new TokenLeases(KEY_POLICY, options.lease, now);
    this.trackEveryMs = options.sharingWindowMs / TRACKS_PER_WINDOW;
  }

  /** Lets a paid request through, taking `cost` tokens from its key's bucket. */
  async admit(credential: Credential, address: string, cost = 1): Promise<Caller> {
    // 1. Who asks.
    if ('session' in credential) await this.ports.sessions.check(credential.session);
    const presented = 'authorization' in credential ? credential.authorization : undefined;
    const keyHash = 'session' in credential ? Buffer.from(credential.session.keyHash, 'hex') : 'keyHash' in credential ? credential.keyHash : undefined;
    // 2. The failure guard (a key served in the last minute is not in doubt).
    const release = await this.admitCheck(address, () => this.recentlyGood(keyHash ?? this.memoizedHash(presented)));
    try {
      const apiKey = keyHash === undefined ? this.presentedKey(presented) : undefined;
      return await this.check(keyHash ?? this.hashOf(apiKey!), apiKey, address, cost);
    } catch (error) {
      if (error instanceof AuthError) this.failures.take(this.options.failurePolicy, address);
      throw error;
    } finally {
      release();
    }
  }

  /**
   * `admit` for a Bearer key this replica holds a lease of (the common case of a busy
   * key): answered at once from memory, with no promise. Undefined when anything needs a
   * lookup or refusing; `admit` then decides.
   */
  admitNow(authorization: string | undefined, address: string, cost = 1): Caller | undefined {
    if (!this.failures.allows(this.options.failurePolicy, address)) return undefined;
    const apiKey = bearerKey(authorization);
    if (apiKey === undefined || this.unknown.has(apiKey)) return undefined;
    const keyHash = this.hashOf(apiKey);
    const entry = this.entryOf(keyHash);
    if (this.dueForTracking(entry, address)) return undefined;
    const leased = this.leases.take(entry.id, cost);
    if (leased === null) return undefined;
    this.seen(keyHash, leased);
    return { subscriberId: leased.subscriberId, keyHash, decision: leased.decision, paidUntilMs: leased.paidUntilMs, address };
  }

  /** A public endpoint's request: a token from its address's bucket (in process while Redis is down). */
  async admitAddress(address: string): Promise<BucketDecision> {
    const decision = await this.ports.gate.takeForAddress(IP_POLICY, address).catch(() => this.fallback.take(IP_POLICY, `ip:${address}`));
    if (!decision.allowed) throw new RateLimitedWithDecision(decision, 'rate limit of this client address exceeded');
    return decision;
  }

  /** A revoked key: nothing this replica holds for it serves another request. */
  forget(keyHashHex: string): void {
    this.recent.delete(keyHashHex);
    this.leases.forget(keyHashHex);
  }

  // --- 1. Who asks ---------------------------------------------------------------------

  /** A well-formed presented key; 401 for a missing, malformed or recently unknown one. */
  private presentedKey(authorization: string | undefined): string {
    if (authorization === undefined || authorization === '') throw new AuthError('missing_api_key', 'send Authorization: Bearer <API key>');
    const apiKey = bearerKey(authorization);
    if (apiKey === undefined) throw new AuthError('invalid_api_key', 'the API key is not valid');
    if (this.unknown.has(apiKey)) throw unknownKey();
    return apiKey;
  }

  /** The key's HMAC, memoized (at most MAX_MEMO keys, dropped whole when full). */
  private hashOf(apiKey: string): Buffer {
    let hash = this.hashes.get(apiKey);
    if (hash === undefined) {
      if (this.hashes.size >= MAX_MEMO) this.hashes.clear();
      hash = this.ports.keys.hash(apiKey);
      this.hashes.set(apiKey, hash);
    }
    return hash;
  }

  /** The memoized hash of a presented key, without hashing it (undefined when none is memoized). */
  private memoizedHash(authorization: string | undefined): Buffer | undefined {
    const apiKey = bearerKey(authorization);
    return apiKey === undefined ? undefined : this.hashes.get(apiKey);
  }

  // --- 2. The failure guard ------------------------------------------------------------

  /**
   * Admits one check of the address while its failure bucket holds a token for every
   * check of it on its way plus this one; else waits until one of those ends (its
   * failure, if any, taken by then) and asks again; refuses (429) when none is on its way.
   * Peeking alone would let a burst of concurrent unknown keys all pass the peek and reach
   * PostgreSQL before the first failure was counted. A key served in the last minute is
   * not in doubt: it needs only a token left (its burst runs concurrently); a burst of a
   * new good key from one address waits its turn until its first request is served.
   */
  private async admitCheck(address: string, knownGood: () => boolean): Promise<() => void> {
    const policy = this.options.failurePolicy;
    for (;;) {
      if (knownGood()) {
        if (!this.failures.allows(policy, address)) throw this.tooManyFailures(address);
        return () => undefined;
      }
      const entry = this.inDoubt.get(address);
      const pending = entry?.pending ?? 0;
      if (this.failures.allows(policy, address, pending + 1)) {
        const admitted = entry ?? { pending: 0, waiters: [] };
        admitted.pending++;
        this.inDoubt.set(address, admitted);
        return () => this.settleDoubt(address, admitted);
      }
      if (entry === undefined || pending === 0) throw this.tooManyFailures(address);
      await new Promise<void>((resolve) => entry.waiters.push(resolve));
    }
  }

  private settleDoubt(address: string, entry: InDoubt): void {
    entry.pending--;
    const waiters = entry.waiters;
    entry.waiters = [];
    if (entry.pending === 0 && this.inDoubt.get(address) === entry) this.inDoubt.delete(address);
    for (const wake of waiters) wake();
  }

  private tooManyFailures(address: string): RateLimitedWithDecision {
    return new RateLimitedWithDecision(this.failures.peek(this.options.failurePolicy, address), 'too many failed authentications from this client address; retry later', 'too_many_failed_auths');
  }

  private recentlyGood(keyHash: Buffer | undefined): boolean {
    const id = keyHash === undefined ? undefined : this.entries.get(keyHash)?.id;
    const entry = id === undefined ? undefined : this.recent.get(id);
    return entry !== undefined && this.now() - entry.seenAtMs < this.options.positiveTtlMs;
  }

  // --- 3 to 7. The key, its tokens, the answer ----------------------------------------

  /** `apiKey`, when the caller presented one, is remembered briefly if PostgreSQL does not know it. */
  private async check(keyHash: Buffer, apiKey: string | undefined, address: string, cost: number): Promise<Caller> {
    let looked: Looked;
    try {
      looked = await this.take(keyHash, address, cost);
      if (looked.state === 'miss') {
        // 5. Unknown to the cache: PostgreSQL. An unknown key is remembered briefly in this
        // process, never in Redis, so random keys cannot fill it (revokers write tombstones).
        const record = await this.lookUp(keyHash);
        if (record === null) throw this.unknownKey(apiKey);
        await this.ports.gate.remember(keyHash, record);
        looked = await this.take(keyHash, address, cost);
      }
    } catch (error) {
      if (error instanceof AuthError || error instanceof UnavailableError) throw error;
      // 6. Redis failed or timed out.
      return this.withoutRedis(error, keyHash, apiKey, address, cost);
    }
    this.setFallback(false);
    // 7. The answer.
    switch (looked.state) {
      case 'miss':
      case 'invalid':
        throw unknownKey();
      case 'expired':
        throw lapsed(looked.paidUntilMs);
      case 'ok':
        if (looked.newlyFlagged) this.ports.events.keySharing(keyHash, looked.subscriberId, looked.distinctAddresses);
        this.seen(keyHash, looked);
        if (!looked.decision.allowed) throw new RateLimitedWithDecision(looked.decision);
        return { subscriberId: looked.subscriberId, keyHash, decision: looked.decision, paidUntilMs: looked.paidUntilMs, address };
    }
  }

  /** 3 and 4: `cost` tokens from this replica's lease of the key, else one call of the shared gate. */
  private async take(keyHash: Buffer, address: string, cost: number): Promise<Looked> {
    const entry = this.entryOf(keyHash);
    const track = this.dueForTracking(entry, address);
    if (track) this.tracking(entry, address);
    else {
      const leased = this.leases.take(entry.id, cost);
      if (leased !== null) return { state: 'ok', ...leased, distinctAddresses: -1, newlyFlagged: false };
    }
    const call = this.leases.begin(entry.id);
    let answer: GateAnswer;
    try {
      answer = await this.ports.gate.check(keyHash, address, cost, track, call);
    } catch (error) {
      this.leases.abandon(entry.id);
      throw error;
    }
    if (answer.state !== 'ok') {
      // The script stops before the tracker unless the key is live: record the pair next time.
      if (track) entry.tracked.delete(address);
      this.leases.abandon(entry.id);
      return answer;
    }
    const { subscriberId, paidUntilMs, allowed, sharedTokens, leaseTokens } = answer;
    // A request the shared bucket refused is served from tokens a concurrent request of
    // the same key brought back to this replica as a lease meanwhile.
    const leased = this.leases.settle(entry.id, { subscriberId, paidUntilMs, tokens: leaseTokens, sharedTokens }, allowed, cost);
    return {
      state: 'ok',
      subscriberId,
      paidUntilMs,
      // The lease's tokens are this key's too.
      decision: leased?.decision ?? decide(KEY_POLICY, sharedTokens + leaseTokens, allowed, cost),
      distinctAddresses: answer.distinctAddresses,
      newlyFlagged: answer.newlyFlagged,
    };
  }

  private entryOf(keyHash: Buffer): KeyEntry {
    let entry = this.entries.get(keyHash);
    if (entry === undefined) {
      entry = { id: keyHash.toString('hex'), tracked: new Map() };
      this.entries.set(keyHash, entry);
    }
    return entry;
  }

  /** Whether the address is due to be recorded by the sharing tracker (first seen, or a fifth of the window ago). */
  private dueForTracking(entry: KeyEntry, address: string): boolean {
    const last = entry.tracked.get(address);
    return last === undefined || this.now() - last >= this.trackEveryMs;
  }

  private tracking(entry: KeyEntry, address: string): void {
    if (entry.tracked.size >= MAX_TRACKED_ADDRESSES) entry.tracked.clear();
    entry.tracked.set(address, this.now());
  }

  /** Billing's table; when it cannot answer, a key let through in the last minute (and not revoked since). */
  private async lookUp(keyHash: Buffer): Promise<KeyRecord | null> {
    let found;
    try {
      found = await this.ports.keys.lookup(keyHash);
    } catch (error) {
      const recent = this.recent.get(keyHash.toString('hex'));
      if (recent !== undefined && this.now() - recent.seenAtMs < this.options.positiveTtlMs) return recent.record;
      throw new UnavailableError('API keys cannot be checked right now', { cause: error });
    }
    return found === null ? null : { subscriberId: found.subscriberId, paidUntilMs: found.paidUntil.getTime() };
  }

  /** 6. Keys from PostgreSQL, limits from the in-process buckets. */
  private async withoutRedis(error: unknown, keyHash: Buffer, apiKey: string | undefined, address: string, cost: number): Promise<Caller> {
    this.setFallback(true, error);
    const record = await this.lookUp(keyHash);
    if (record === null) throw this.unknownKey(apiKey);
    if (record.paidUntilMs <= this.now()) throw lapsed(record.paidUntilMs);
    this.seen(keyHash, record);
    const decision = this.fallback.take(KEY_POLICY, keyHash.toString('hex'), cost);
    if (!decision.allowed) throw new RateLimitedWithDecision(decision);
    return { subscriberId: record.subscriberId, keyHash, decision, paidUntilMs: record.paidUntilMs, address };
  }

  private unknownKey(apiKey: string | undefined): AuthError {
    if (apiKey !== undefined) this.unknown.add(apiKey);
    return unknownKey();
  }

  private seen(keyHash: Buffer, record: KeyRecord): void {
    const id = this.entryOf(keyHash).id;
    const entry = this.recent.get(id);
    if (entry !== undefined && entry.record.paidUntilMs === record.paidUntilMs && entry.record.subscriberId === record.subscriberId) {
      entry.seenAtMs = this.now();
      return;
    }
    this.recent.delete(id);
    if (this.recent.size >= this.options.positiveMaxEntries) this.recent.delete(this.recent.keys().next().value as string);
    this.recent.set(id, { record: { subscriberId: record.subscriberId, paidUntilMs: record.paidUntilMs }, seenAtMs: this.now() });
  }

  private setFallback(active: boolean, error?: unknown): void {
    if (active === this.fallbackActive) return;
    this.fallbackActive = active;
    this.ports.events.redisFallback(active);
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

function lapsed(paidUntilMs: number): PaymentRequiredError {
  return new PaymentRequiredError(`the subscription ended at ${new Date(paidUntilMs).toISOString()}; renew it to use this key`);
}
