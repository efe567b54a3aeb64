import { StreamRegistry, type StreamOwner } from './stream-registry';

const owner = (key: string, address: string, paidUntilMs = Number.MAX_SAFE_INTEGER): StreamOwner => ({ key, address, paidUntilMs });

describe('StreamRegistry', () => {
  it('caps streams per key and per address; releasing frees the slot', () => {
    const registry = new StreamRegistry({ perKey: 2, perAddress: 3 });
    const a1 = registry.open(owner('k1', 'a'), () => undefined);
    const a2 = registry.open(owner('k1', 'b'), () => undefined);
    expect(registry.open(owner('k1', 'c'), () => undefined)).toEqual({ refused: { cap: 'key', limit: 2 } });
    registry.open(owner('k2', 'a'), () => undefined);
    registry.open(owner('k3', 'a'), () => undefined);
    expect(registry.open(owner('k4', 'a'), () => undefined)).toEqual({ refused: { cap: 'address', limit: 3 } });
    if (!('release' in a1) || !('release' in a2)) throw new Error('expected leases');
    a1.release();
    a1.release(); // idempotent
    expect(registry.countForKey('k1')).toBe(1);
    expect('release' in registry.open(owner('k4', 'a'), () => undefined)).toBe(true);
    expect('release' in registry.open(owner('k1', 'c'), () => undefined)).toBe(true);
  });

  it("closes a revoked key's streams, and expired keys' streams", () => {
    const registry = new StreamRegistry({ perKey: 5, perAddress: 50 });
    const closed: string[] = [];
    for (const [key, until] of [
      ['k1', 100],
      ['k1', 100],
      ['k2', 50],
      ['k3', 200],
    ] as const) {
      const lease = registry.open(owner(key, 'a', until), () => {
        closed.push(key);
        if ('release' in lease) lease.release();
      });
    }
    expect(registry.revoke('k1')).toBe(2);
    expect(closed).toEqual(['k1', 'k1']);
    expect(registry.revoke('nope')).toBe(0);
    expect(registry.closeExpired(150)).toBe(1);
    expect(closed).toEqual(['k1', 'k1', 'k2']);
    expect(registry.size).toBe(1);
  });

  it("closes a dashboard session's streams when the session is signed out or expires, and no other stream", () => {
    const registry = new StreamRegistry({ perKey: 5, perAddress: 50 });
    const closed: string[] = [];
    const open = (name: string, o: StreamOwner): void => {
      const lease = registry.open(o, () => {
        closed.push(name);
        if ('release' in lease) lease.release();
      });
    };
    const sub = 'sub_aaaaaaaaaaaaaaaaaaaaaa';
    open('bearer', owner('k1', 'a'));
    open('epoch0', { ...owner('k1', 'a'), session: { subscriberId: sub, epoch: 0, expiresAtMs: 1_000 } });
    open('epoch1', { ...owner('k1', 'a'), session: { subscriberId: sub, epoch: 1, expiresAtMs: 500 } });
    open('other', { ...owner('k2', 'b'), session: { subscriberId: 'sub_bbbbbbbbbbbbbbbbbbbbbb', epoch: 0, expiresAtMs: 1_000 } });
    expect(registry.sessionSubscribers().sort()).toEqual([sub, 'sub_bbbbbbbbbbbbbbbbbbbbbb']);
    // Signed out at epoch 0: the subscriber's epoch is now 1.
    expect(registry.endSessions(sub, 1)).toBe(1);
    expect(closed).toEqual(['epoch0']);
    expect(registry.endSessions(sub, 1)).toBe(0);
    // The epoch-1 session expires at 500 although the key is paid for longer.
    expect(registry.closeExpired(499)).toBe(0);
    expect(registry.closeExpired(500)).toBe(1);
    expect(closed).toEqual(['epoch0', 'epoch1']);
    expect(registry.size).toBe(2);
  });
});
