import { KEY_POLICY } from './token-bucket';
import { TokenLeases, type LeasePolicy } from './token-lease';

const POLICY: LeasePolicy = { ttlMs: 1000, maxTokens: 10, share: 4, maxLeases: 3 };

function leases(policy = POLICY) {
  let now = 1_000_000;
  const l = new TokenLeases(KEY_POLICY, policy, () => now);
  return { l, advance: (ms: number) => (now += ms), now: () => now };
}

const grant = (tokens: number, sharedTokens = 40, paidUntilMs = 2_000_000) => ({ subscriberId: 'sub_a', paidUntilMs, tokens, sharedTokens });

describe('TokenLeases', () => {
  it('serves requests from a granted lease until it is spent, then asks the shared bucket', () => {
    const { l } = leases();
    expect(l.take('k', 1)).toBeNull();
    l.grant('k', grant(3));
    const served = [l.take('k', 1), l.take('k', 1), l.take('k', 1)];
    expect(served.every((s) => s?.decision.allowed === true && s.subscriberId === 'sub_a')).toBe(true);
    // The shared bucket's 40 plus what is left of the lease.
    expect(served.map((s) => s?.decision.remaining)).toEqual([42, 41, 40]);
    expect(l.take('k', 1)).toBeNull();
    expect(l.end('k')).toBe(0);
  });

  it('counts what the shared bucket refilled since the grant, up to the capacity', () => {
    const { l, advance } = leases();
    l.grant('k', grant(5, 50));
    advance(800); // +4 tokens at 5 per second
    expect(l.take('k', 1)?.decision.remaining).toBe(54 + 4);
    expect(l.take('k', 1)?.decision.remaining).toBe(54 + 3);
    l.grant('full', grant(5, 58));
    advance(800);
    expect(l.take('full', 1)?.decision.remaining).toBe(60);
  });

  it('ends a lease at its time to live and gives its unused tokens back', () => {
    const { l, advance } = leases();
    l.grant('k', grant(6));
    expect(l.take('k', 2)).not.toBeNull();
    advance(1000);
    expect(l.take('k', 1)).toBeNull();
    expect(l.end('k')).toBe(4);
    expect(l.end('k')).toBe(0);
  });

  it('never serves past the end of the paid period', () => {
    const { l, advance, now } = leases();
    l.grant('k', grant(6, 40, now() + 100));
    expect(l.take('k', 1)).not.toBeNull();
    advance(100);
    expect(l.take('k', 1)).toBeNull();
  });

  it('refuses a request costing more than the lease holds', () => {
    const { l } = leases();
    l.grant('k', grant(2));
    expect(l.take('k', 3)).toBeNull();
    expect(l.end('k')).toBe(2);
  });

  it('joins a concurrent grant of the same key instead of losing either', () => {
    const { l } = leases();
    l.grant('k', grant(4));
    l.grant('k', grant(3, 30));
    expect(l.end('k')).toBe(7);
  });

  it('replaces a lease of another subscriber or paid period', () => {
    const { l } = leases();
    l.grant('k', grant(4));
    l.grant('k', { ...grant(3), paidUntilMs: 3_000_000 });
    expect(l.end('k')).toBe(3);
  });

  it('forgets a revoked key without giving anything back', () => {
    const { l } = leases();
    l.grant('k', grant(4));
    l.forget('k');
    expect(l.take('k', 1)).toBeNull();
    expect(l.end('k')).toBe(0);
  });

  it('ignores empty grants and holds at most maxLeases, dropping the oldest', () => {
    const { l } = leases();
    l.grant('a', grant(0));
    expect(l.size).toBe(0);
    for (const key of ['a', 'b', 'c', 'd']) l.grant(key, grant(1));
    expect(l.size).toBe(3);
    expect(l.take('a', 1)).toBeNull();
    expect(l.take('d', 1)).not.toBeNull();
  });

  it('does not serve when the clock went backwards', () => {
    const { l, advance } = leases();
    l.grant('k', grant(4));
    advance(-5);
    expect(l.take('k', 1)).toBeNull();
  });
});
