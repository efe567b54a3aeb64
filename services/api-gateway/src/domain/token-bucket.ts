/**
 * Token bucket arithmetic shared by the Redis script (which mirrors it in Lua) and the
 * in-process fallback limiter, so both enforce exactly the same policy.
 */

/** Burst capacity and steady refill rate of one bucket. */
export interface BucketPolicy {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

/** Tokens left and when they were counted (milliseconds, any monotonic-enough clock). */
export interface BucketState {
  readonly tokens: number;
  readonly updatedAtMs: number;
}

/** Outcome of asking for tokens, with the values of the RateLimit-* headers. */
export interface BucketDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  readonly resetSeconds: number;
  /** Seconds until one token is available (Retry-After on a 429), at least 1. */
  readonly retryAfterSeconds: number;
}

/** The API key policy of SPEC 5: burst 60, 5 tokens per second. */
export const KEY_POLICY: BucketPolicy = { capacity: 60, refillPerSecond: 5 };
/** Public endpoints, per client IP: burst 100, 20 per second. */
export const IP_POLICY: BucketPolicy = { capacity: 100, refillPerSecond: 20 };

/** Refills `state` up to `nowMs` and takes `cost` tokens if there are enough. */
export function takeTokens(
  policy: BucketPolicy,
  state: BucketState | undefined,
  nowMs: number,
  cost = 1,
): { decision: BucketDecision; state: BucketState } {
  let tokens = tokensAt(policy, state, nowMs);
  const allowed = tokens >= cost;
  if (allowed) tokens -= cost;
  return { decision: decide(policy, tokens, allowed, cost), state: { tokens, updatedAtMs: nowMs } };
}

/** What a bucket holds at `nowMs` (a bucket never used is full). */
export function tokensAt(policy: BucketPolicy, state: BucketState | undefined, nowMs: number): number {
  if (state === undefined) return policy.capacity;
  return Math.min(policy.capacity, state.tokens + (Math.max(0, nowMs - state.updatedAtMs) * policy.refillPerSecond) / 1000);
}

/** Header values for a bucket holding `tokens` after the request. */
export function decide(policy: BucketPolicy, tokens: number, allowed: boolean, cost = 1): BucketDecision {
  const missing = Math.max(0, cost - tokens);
  return {
    allowed,
    limit: policy.capacity,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((policy.capacity - tokens) / policy.refillPerSecond),
    retryAfterSeconds: Math.max(1, Math.ceil(missing / policy.refillPerSecond)),
  };
}
