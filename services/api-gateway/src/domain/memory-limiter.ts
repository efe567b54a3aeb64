import { takeTokens, tokensAt, type BucketDecision, type BucketPolicy, type BucketState } from './token-bucket';

/**
 * The in-process fallback limiter: the same token buckets as Redis, per process. Used
 * only while Redis is unreachable (fail-soft: limits still apply, per replica). Idle
 * buckets are forgotten once they would be full again.
 */
const MAX_BUCKETS = 200_000;

export class MemoryLimiter {
  private readonly buckets = new Map<string, BucketState>();
  private lastSweepMs = 0;

  constructor(private readonly now: () => number = Date.now) {}

  take(policy: BucketPolicy, key: string, cost = 1): BucketDecision {
    const nowMs = this.now();
    this.sweep(policy, nowMs);
    const { decision, state } = takeTokens(policy, this.buckets.get(key), nowMs, cost);
    // A flood from ever-new keys (addresses) cannot grow the map without bound.
    if (!this.buckets.has(key) && this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value as string);
    this.buckets.set(key, state);
    return decision;
  }

  /** Whether `cost` tokens are available now, without taking them. */
  peek(policy: BucketPolicy, key: string, cost = 1): BucketDecision {
    return takeTokens(policy, this.buckets.get(key), this.now(), cost).decision;
  }

  /** `peek(...).allowed` without building a decision (asked on every leased request). */
  allows(policy: BucketPolicy, key: string, cost = 1): boolean {
    const state = this.buckets.get(key);
    return state === undefined ? policy.capacity >= cost : tokensAt(policy, state, this.now()) >= cost;
  }

  get size(): number {
    return this.buckets.size;
  }

  private sweep(policy: BucketPolicy, nowMs: number): void {
    const refillMs = (policy.capacity / policy.refillPerSecond) * 1000;
    if (nowMs - this.lastSweepMs < refillMs) return;
    this.lastSweepMs = nowMs;
    for (const [key, state] of this.buckets) if (nowMs - state.updatedAtMs >= refillMs) this.buckets.delete(key);
  }
}
