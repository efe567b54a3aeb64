import { KEY_POLICY, takeTokens, type BucketState } from './token-bucket';

describe('token bucket', () => {
  it('allows exactly the burst, then rejects with a Retry-After of one refill interval', () => {
    let state: BucketState | undefined;
    for (let i = 0; i < 60; i++) {
      const step = takeTokens(KEY_POLICY, state, 1000);
      expect(step.decision.allowed).toBe(true);
      expect(step.decision.remaining).toBe(59 - i);
      state = step.state;
    }
    const rejected = takeTokens(KEY_POLICY, state, 1000);
    expect(rejected.decision.allowed).toBe(false);
    expect(rejected.decision.retryAfterSeconds).toBe(1);
    expect(rejected.decision.resetSeconds).toBe(12);
  });

  it('refills at 5 tokens per second up to the capacity', () => {
    const empty: BucketState = { tokens: 0, updatedAtMs: 0 };
    expect(takeTokens(KEY_POLICY, empty, 199).decision.allowed).toBe(false);
    const after = takeTokens(KEY_POLICY, empty, 200);
    expect(after.decision.allowed).toBe(true);
    expect(after.state.tokens).toBeCloseTo(0);
    expect(takeTokens(KEY_POLICY, empty, 3_600_000).state.tokens).toBe(59);
  });

  it('ignores a clock that goes backwards', () => {
    const state: BucketState = { tokens: 10, updatedAtMs: 5000 };
    expect(takeTokens(KEY_POLICY, state, 4000).state.tokens).toBe(9);
  });
});
