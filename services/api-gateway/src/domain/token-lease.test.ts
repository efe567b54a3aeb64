import { KEY_POLICY } from './token-bucket';
import { TokenLeases, type LeasePolicy } from './token-lease';

const POLICY: LeasePolicy = { ttlMs: 1000, maxTokens: 10, share: 4, maxLeases: 3, minGapMs: 50 };

function leases(policy = POLICY) {
  let now = 1_000_000;
  const l = new TokenLeases(KEY_POLICY, policy, () => now);
  return { l, advance: (ms: number) => (now += ms), now: () => now };
}

const grant = (tokens: number, sharedTokens = 40, paidUntilMs = 2_000_000) => ({ subscriberId: 'sub_a', paidUntilMs, tokens, sharedTokens });

/** A call to the shared bucket that comes back allowed with `tokens` leased. */
function granted(l: TokenLeases, key: string, tokens: number, sharedTokens = 40, paidUntilMs = 2_000_000) {
  const call = l.begin(key);
  l.settle(key, grant(tokens, sharedTokens, paidUntilMs), true, 1);
  return call;
}

describe('TokenLeases', () => {
  it('serves requests from a granted lease until it is spent, then asks the shared bucket', () => {
    const { l } = leases();
    expect(l.take('k', 1)).toBeNull();
    granted(l, 'k', 3);
    const served = [l.take('k', 1), l.take('k', 1), l.take('k', 1)];
    expect(served.every((s) => s?.decision.allowed === true && s.subscriberId === 'sub_a')).toBe(true);
    // The shared bucket's 40 plus what is left of the lease.
    expect(served.map((s) => s?.decision.remaining)).toEqual([42, 41, 40]);
    expect(l.take('k', 1)).toBeNull();
    expect(l.begin('k')).toMatchObject({ refund: 0, released: 3 });
  });

  it('counts what the shared bucket refilled since the grant, up to the capacity', () => {
    const { l, advance } = leases();
    granted(l, 'k', 5, 50);
    advance(800); // +4 tokens at 5 per second
    expect(l.take('k', 1)?.decision.remaining).toBe(54 + 4);
    expect(l.take('k', 1)?.decision.remaining).toBe(54 + 3);
    granted(l, 'full', 5, 58);
    advance(800);
    expect(l.take('full', 1)?.decision.remaining).toBe(60);
  });

  it('gives a lease back with the next call: its unused tokens, and all it was granted while it is within its time to live', () => {
    const { l } = leases();
    granted(l, 'k', 6);
    expect(l.take('k', 2)).not.toBeNull();
    expect(l.begin('k')).toMatchObject({ refund: 4, released: 6 });
    expect(l.begin('k')).toMatchObject({ refund: 0, released: 0 });
  });

  it('ends a lease at its time to live; past it the shared bucket may have released it already, so it is not released again', () => {
    const { l, advance } = leases();
    granted(l, 'k', 6);
    expect(l.take('k', 2)).not.toBeNull();
    advance(1000);
    expect(l.take('k', 1)).toBeNull();
    expect(l.begin('k')).toMatchObject({ refund: 4, released: 0 });
  });

  it('never serves past the end of the paid period', () => {
    const { l, advance, now } = leases();
    granted(l, 'k', 6, 40, now() + 100);
    expect(l.take('k', 1)).not.toBeNull();
    advance(100);
    expect(l.take('k', 1)).toBeNull();
  });

  it('refuses a request costing more than the lease holds', () => {
    const { l } = leases();
    granted(l, 'k', 2);
    expect(l.take('k', 3)).toBeNull();
    expect(l.begin('k')).toMatchObject({ refund: 2, released: 2 });
  });

  it('joins leases granted to concurrent calls of the same key instead of losing either', () => {
    const { l } = leases();
    l.begin('k');
    l.begin('k');
    l.settle('k', grant(4), true, 1);
    l.settle('k', grant(3, 30), true, 1);
    expect(l.begin('k')).toMatchObject({ refund: 7, released: 7 });
  });

  it('serves a request the shared bucket refused from a lease a concurrent call brought meanwhile', () => {
    const { l } = leases();
    l.begin('k');
    l.begin('k');
    l.begin('k');
    expect(l.settle('k', grant(2, 0), true, 1)).toBeNull(); // allowed by the shared bucket itself
    expect(l.settle('k', grant(0, 0), false, 1)?.decision).toMatchObject({ allowed: true, remaining: 1 });
    expect(l.settle('k', grant(0, 0), false, 1)?.decision).toMatchObject({ allowed: true, remaining: 0 });
    expect(l.begin('k')).toMatchObject({ refund: 0 });
    expect(l.settle('k', grant(0, 0), false, 1)).toBeNull(); // nothing left anywhere: a 429
  });

  it('does not serve a refused request from a lease of another subscriber', () => {
    const { l } = leases();
    l.begin('k');
    l.begin('k');
    l.settle('k', grant(2, 0), true, 1);
    expect(l.settle('k', { ...grant(0, 0), subscriberId: 'sub_b' }, false, 1)).toBeNull();
  });

  it('replaces a lease of another subscriber or paid period', () => {
    const { l } = leases();
    granted(l, 'k', 4);
    l.begin('k');
    l.begin('k');
    l.settle('k', grant(4), true, 1);
    l.settle('k', { ...grant(3), paidUntilMs: 3_000_000 }, true, 1);
    expect(l.begin('k')).toMatchObject({ refund: 3, released: 3 });
  });

  it('forgets a revoked key without giving anything back', () => {
    const { l } = leases();
    granted(l, 'k', 4);
    l.forget('k');
    expect(l.take('k', 1)).toBeNull();
    expect(l.begin('k')).toMatchObject({ refund: 0, released: 0 });
  });

  it('holds at most maxLeases keys, dropping the oldest', () => {
    const { l } = leases();
    granted(l, 'a', 0);
    expect(l.size).toBe(0);
    for (const key of ['a', 'b', 'c', 'd']) granted(l, key, 1);
    expect(l.size).toBe(3);
    expect(l.take('a', 1)).toBeNull();
    expect(l.take('d', 1)).not.toBeNull();
  });

  it('does not serve when the clock went backwards', () => {
    const { l, advance } = leases();
    granted(l, 'k', 4);
    advance(-5);
    expect(l.take('k', 1)).toBeNull();
  });

  describe('asks for a lease only for a key polled at a steady pace', () => {
    it('not on a key\'s first request, then for requests one at a time at least the gap apart and within a lease\'s life', () => {
      const { l, advance } = leases();
      expect(l.begin('k').askLease).toBe(false);
      l.settle('k', grant(0), true, 1);
      advance(50);
      expect(l.begin('k').askLease).toBe(true);
      l.settle('k', grant(0), true, 1);
      advance(999);
      expect(l.begin('k').askLease).toBe(true);
      l.settle('k', grant(0), true, 1);
      advance(1000); // idle for a lease's whole life: no pace any more
      expect(l.begin('k').askLease).toBe(false);
    });

    it('not while another call of the key is on its way, nor for a lease\'s life after a burst', () => {
      const { l, advance } = leases();
      l.begin('k');
      l.settle('k', grant(0), true, 1);
      advance(100);
      expect(l.begin('k').askLease).toBe(true);
      expect(l.begin('k').askLease).toBe(false); // concurrent with the first
      l.settle('k', grant(0), true, 1);
      l.settle('k', grant(0), true, 1);
      advance(100);
      expect(l.begin('k').askLease).toBe(false); // the burst is recent
      l.settle('k', grant(0), true, 1);
      advance(1000);
      l.begin('k');
      l.settle('k', grant(0), true, 1);
      advance(100);
      expect(l.begin('k').askLease).toBe(true); // steady again
    });

    it('not for requests back to back, served from a lease or not', () => {
      const { l, advance } = leases();
      l.begin('k');
      l.settle('k', grant(0), true, 1);
      advance(60);
      l.begin('k');
      l.settle('k', grant(5), true, 1);
      advance(10);
      expect(l.take('k', 1)).not.toBeNull(); // 10 ms after the last: back to back
      advance(60);
      for (let i = 0; i < 4; i++) expect(l.take('k', 1)).not.toBeNull();
      advance(60);
      expect(l.begin('k').askLease).toBe(false);
    });

    it('counts a call that got no answer as ended', () => {
      const { l, advance } = leases();
      l.begin('k');
      l.settle('k', grant(0), true, 1);
      advance(1000);
      l.begin('k');
      l.abandon('k');
      advance(60);
      expect(l.begin('k').askLease).toBe(true);
    });
  });
});
