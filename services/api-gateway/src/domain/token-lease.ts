import { decide, type BucketDecision, type BucketPolicy } from './token-bucket';

/**
 * Tokens of a key's shared bucket (Redis) that this replica took ahead of use, so that
 * a busy key costs one Redis round trip per lease rather than per request.
 *
 * The shared bucket grants a lease only while it holds plenty (see gate.lua.ts), so a
 * key near its limit is counted exactly, request by request. Every leased token was
 * taken from the shared bucket, so replicas together never sustain more than its refill
 * rate. A burst may exceed the capacity by what is leased out: the shared bucket keeps
 * refilling while a lease is out, where a full bucket would not have (at most
 * min(lease, `refillPerSecond × ttlMs`) tokens per replica; tokens given back are capped
 * at the capacity). A lease ends after `ttlMs`, when spent, at the end of the paid
 * period, or at once on the key's revocation; its unused tokens go back to the shared
 * bucket with the key's next call to it.
 *
 * `ttlMs` is several times a polling client's interval (a second or two, as
 * docs/operations.md plans for), so such a client costs one Redis call per lease, not
 * one per request.
 */
export interface LeasePolicy {
  /** How long a lease serves requests before the shared bucket is asked again. */
  readonly ttlMs: number;
  /** Most tokens one lease may hold. */
  readonly maxTokens: number;
  /** A lease takes at most 1/share of what the shared bucket holds after the request. */
  readonly share: number;
  /** Leases held at once (oldest dropped first, their tokens forfeited). */
  readonly maxLeases: number;
}

export const DEFAULT_LEASE_POLICY: LeasePolicy = { ttlMs: 5000, maxTokens: 10, share: 4, maxLeases: 100_000 };

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

interface Lease {
  readonly subscriberId: string;
  readonly paidUntilMs: number;
  tokens: number;
  sharedTokens: number;
  grantedAtMs: number;
}

/** This replica's leases, by key (the key hash in hex). */
export class TokenLeases {
  private readonly leases = new Map<string, Lease>();

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
    const lease = this.leases.get(key);
    if (lease === undefined || lease.tokens < cost) return null;
    const nowMs = this.now();
    const age = nowMs - lease.grantedAtMs;
    if (age >= this.policy.ttlMs || age < 0 || nowMs >= lease.paidUntilMs) return null;
    lease.tokens -= cost;
    const shared = lease.sharedTokens + (age * this.bucket.refillPerSecond) / 1000;
    const visible = Math.min(this.bucket.capacity, shared + lease.tokens);
    return { subscriberId: lease.subscriberId, paidUntilMs: lease.paidUntilMs, decision: decide(this.bucket, visible, true, cost) };
  }

  /** Ends the key's lease; returns its unused tokens, to give back to the shared bucket. */
  end(key: string): number {
    const lease = this.leases.get(key);
    if (lease === undefined) return 0;
    this.leases.delete(key);
    return lease.tokens;
  }

  /**
   * Records what the shared bucket granted. A lease granted to a concurrent request of
   * the same key is joined, not replaced, so no granted token is lost.
   */
  grant(key: string, grant: LeaseGrant): void {
    if (grant.tokens <= 0) return;
    const nowMs = this.now();
    const held = this.leases.get(key);
    if (held !== undefined && held.subscriberId === grant.subscriberId && held.paidUntilMs === grant.paidUntilMs) {
      held.tokens += grant.tokens;
      held.sharedTokens = grant.sharedTokens;
      held.grantedAtMs = nowMs;
      return;
    }
    this.leases.delete(key);
    if (this.leases.size >= this.policy.maxLeases) this.leases.delete(this.leases.keys().next().value as string);
    this.leases.set(key, { subscriberId: grant.subscriberId, paidUntilMs: grant.paidUntilMs, tokens: grant.tokens, sharedTokens: grant.sharedTokens, grantedAtMs: nowMs });
  }

  /** Drops the key's lease without giving anything back (a revoked key). */
  forget(key: string): void {
    this.leases.delete(key);
  }

  get size(): number {
    return this.leases.size;
  }
}
