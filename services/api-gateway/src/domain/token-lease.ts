import { decide, type BucketDecision, type BucketPolicy } from './token-bucket';

/**
 * Tokens of a key's shared bucket (Redis) that this replica took ahead of use, so that
 * a key polled at a steady pace costs one Redis round trip per lease rather than per
 * request.
 *
 * What the contract promises holds with leases:
 * - **Never more than the bucket allows.** Every leased token was taken from the shared
 *   bucket, and the shared bucket counts what is out on lease against its capacity until
 *   the lease is given back or has expired (gate.lua.ts), so the tokens in the shared
 *   bucket plus those on lease never exceed the capacity: over any window a key is served
 *   at most its burst plus the refill of that window, however many replicas hold leases.
 * - **A burst gets the whole bucket.** Only a key polled one request at a time, at least
 *   `minGapMs` apart, is granted a lease; a key whose requests arrive together (a burst,
 *   `Promise.all`) or back to back is counted by the shared bucket request by request,
 *   so concurrent requests on any number of replicas share every token. A request the
 *   shared bucket refused is still served from a lease a concurrent request of the same
 *   key brought back to this replica meanwhile.
 * What a lease can still hold back: a key polled steadily through replica A and then
 *   sent a burst only through replica B finds at most A's lease (`maxTokens`, for at most
 *   `ttlMs`) out of reach of B.
 *
 * A lease ends after `ttlMs`, when spent, at the end of the paid period, or at once on
 * the key's revocation; its unused tokens go back to the shared bucket with the key's
 * next call to it (a revoked key's are forfeited).
 */
export interface LeasePolicy {
  /** How long a lease serves requests before the shared bucket is asked again. */
  readonly ttlMs: number;
  /** Most tokens one lease may hold. */
  readonly maxTokens: number;
  /** A lease takes at most 1/share of what the shared bucket holds after the request. */
  readonly share: number;
  /** Keys tracked at once (oldest dropped first, a lease's tokens forfeited). */
  readonly maxLeases: number;
  /**
   * A key is leased only when its requests come one at a time and at least this far
   * apart (a polling client), never in the middle of a burst.
   */
  readonly minGapMs: number;
}

export const DEFAULT_LEASE_POLICY: LeasePolicy = { ttlMs: 5000, maxTokens: 10, share: 4, maxLeases: 100_000, minGapMs: 50 };

/** What the shared bucket granted with a request. */
export interface LeaseGrant {
  readonly subscriberId: string;
  readonly paidUntilMs: number;
  /** Tokens granted beyond the request's own cost. */
  readonly tokens: number;
  /** Tokens left in the shared bucket after the grant. */
  readonly sharedTokens: number;
}

/** A request served from a lease. */
export interface LeasedRequest {
  readonly subscriberId: string;
  readonly paidUntilMs: number;
  readonly decision: BucketDecision;
}

/** What a call to the shared bucket takes along: the ended lease, and whether to ask for one. */
export interface BucketCall {
  /** Unused tokens of the lease that ended, to give back. */
  readonly refund: number;
  /** Everything that lease was granted, which the shared bucket stops counting as out on lease. */
  readonly released: number;
  /** Whether the shared bucket may grant a lease with this request. */
  readonly askLease: boolean;
}

interface Lease {
  readonly subscriberId: string;
  readonly paidUntilMs: number;
  tokens: number;
  /** Tokens granted to this lease in all (joined grants add up). */
  granted: number;
  sharedTokens: number;
  grantedAtMs: number;
}

/** This replica's view of one key: its lease and the pace of its requests. */
interface KeyState {
  lease: Lease | undefined;
  /** Calls to the shared bucket on their way. */
  inFlight: number;
  /** The key's last request on this replica. */
  lastRequestMs: number;
  /** Until then the key counts as bursting (requests together or back to back): no lease. */
  burstUntilMs: number;
}

/** This replica's leases and request pace, by key (the key hash in hex). */
export class TokenLeases {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly bucket: BucketPolicy,
    readonly policy: LeasePolicy = DEFAULT_LEASE_POLICY,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes `cost` tokens from the key's lease. Null when the shared bucket must be asked:
   * no lease, too few tokens left in it, expired, or past the key's paid period. The
   * RateLimit-* values count the lease's tokens with the shared bucket's, as last seen
   * and refilled since.
   */
  take(key: string, cost: number): LeasedRequest | null {
    const state = this.keys.get(key);
    const lease = state?.lease;
    if (lease === undefined || lease.tokens < cost) return null;
    const nowMs = this.now();
    const age = nowMs - lease.grantedAtMs;
    if (age >= this.policy.ttlMs || age < 0 || nowMs >= lease.paidUntilMs) return null;
    this.paced(state!, nowMs);
    return this.spend(lease, cost, age);
  }

  /**
   * A request of the key goes to the shared bucket: the key's lease ends (its unused
   * tokens go back unless it outlived its time to live), and the call asks for a new
   * lease only when the key is polled at a steady pace. Every `begin` is followed by one
   * `settle` when the shared bucket answers, or by `abandon` when it cannot.
   */
  begin(key: string): BucketCall {
    const nowMs = this.now();
    const state = this.stateOf(key, nowMs);
    const gap = nowMs - state.lastRequestMs;
    const steady = state.inFlight === 0 && gap >= this.policy.minGapMs && gap < this.policy.ttlMs && nowMs >= state.burstUntilMs;
    this.paced(state, nowMs);
    state.inFlight++;
    const lease = state.lease;
    state.lease = undefined;
    if (lease === undefined) return { refund: 0, released: 0, askLease: steady };
    // A lease within its time to live is still counted by the shared bucket, which stops
    // counting it now; one past it may already have been released there, and releasing it
    // again would hide another replica's lease. Unused tokens go back either way (the
    // shared bucket caps them at what its capacity leaves room for).
    const age = nowMs - lease.grantedAtMs;
    const live = age >= 0 && age < this.policy.ttlMs;
    return { refund: lease.tokens, released: live ? lease.granted : 0, askLease: steady };
  }

  /**
   * The shared bucket answered a call `begin` announced. Records a granted lease (joined
   * with one a concurrent call brought, so no granted token is lost) and, when the shared
   * bucket refused the request, serves it from such a lease if it can.
   */
  settle(key: string, grant: LeaseGrant, allowed: boolean, cost: number): LeasedRequest | null {
    const nowMs = this.now();
    const state = this.stateOf(key, nowMs);
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (grant.tokens > 0) this.grant(state, grant, nowMs);
    if (allowed) return null;
    const lease = state.lease;
    if (lease === undefined || lease.tokens < cost || lease.subscriberId !== grant.subscriberId) return null;
    const age = nowMs - lease.grantedAtMs;
    if (age >= this.policy.ttlMs || age < 0 || nowMs >= lease.paidUntilMs) return null;
    return this.spend(lease, cost, age);
  }

  /** A call `begin` announced got no answer (Redis down or slow). */
  abandon(key: string): void {
    const state = this.keys.get(key);
    if (state !== undefined) state.inFlight = Math.max(0, state.inFlight - 1);
  }

  /** Drops the key's lease without giving anything back (a revoked key). */
  forget(key: string): void {
    const state = this.keys.get(key);
    if (state !== undefined) state.lease = undefined;
  }

  /** Keys with a lease. */
  get size(): number {
    let leased = 0;
    for (const state of this.keys.values()) if (state.lease !== undefined) leased++;
    return leased;
  }

  private grant(state: KeyState, grant: LeaseGrant, nowMs: number): void {
    const held = state.lease;
    if (held !== undefined && held.subscriberId === grant.subscriberId && held.paidUntilMs === grant.paidUntilMs) {
      held.tokens += grant.tokens;
      held.granted += grant.tokens;
      held.sharedTokens = grant.sharedTokens;
      held.grantedAtMs = nowMs;
      return;
    }
    state.lease = { subscriberId: grant.subscriberId, paidUntilMs: grant.paidUntilMs, tokens: grant.tokens, granted: grant.tokens, sharedTokens: grant.sharedTokens, grantedAtMs: nowMs };
  }

  private spend(lease: Lease, cost: number, age: number): LeasedRequest {
    lease.tokens -= cost;
    const shared = lease.sharedTokens + (age * this.bucket.refillPerSecond) / 1000;
    const visible = Math.min(this.bucket.capacity, shared + lease.tokens);
    return { subscriberId: lease.subscriberId, paidUntilMs: lease.paidUntilMs, decision: decide(this.bucket, visible, true, cost) };
  }

  /** Notes a request of the key now; one arriving back to back with the last, or beside a call in flight, marks a burst. */
  private paced(state: KeyState, nowMs: number): void {
    if (state.inFlight > 0 || nowMs - state.lastRequestMs < this.policy.minGapMs) state.burstUntilMs = nowMs + this.policy.ttlMs;
    state.lastRequestMs = nowMs;
  }

  private stateOf(key: string, nowMs: number): KeyState {
    let state = this.keys.get(key);
    if (state === undefined) {
      if (this.keys.size >= this.policy.maxLeases) this.keys.delete(this.keys.keys().next().value as string);
      // A key seen for the first time has no pace yet: its first call asks for no lease.
      state = { lease: undefined, inFlight: 0, lastRequestMs: nowMs - this.policy.ttlMs, burstUntilMs: nowMs };
      this.keys.set(key, state);
    }
    return state;
  }
}
