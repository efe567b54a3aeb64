import { createHash } from 'node:crypto';
import { AuthError } from '@gridlab/errors';
import { createLogger } from '@gridlab/logger';
import { Access } from './access';
import type { GateAnswer, KeyLookup, SharedGate } from './ports';
import { decide, IP_POLICY } from '../domain/token-bucket';
import type { Session } from '../domain/session';

const KEY = `grid_${'A'.repeat(43)}`;
const paidUntilMs = Date.now() + 86_400_000;
/** A live key's answer; `lease` tokens granted to this replica beyond the request. */
const ok = (sharedTokens: number, lease = 0): GateAnswer => ({ state: 'ok', subscriberId: 'sub_1', paidUntilMs, allowed: true, sharedTokens, leaseTokens: lease, distinctAddresses: 1, newlyFlagged: false });

/** A gate that answers every key as live, granting a lease of 10 when told to. */
class FakeGate implements SharedGate {
  leasing = false;
  readonly calls: { readonly address: string; readonly track: boolean }[] = [];
  async check(_keyHash: Buffer, address: string, _cost: number, track: boolean): Promise<GateAnswer> {
    this.calls.push({ address, track });
    return ok(50, this.leasing ? 10 : 0);
  }
  async remember(): Promise<void> {}
  async takeForAddress() {
    return decide(IP_POLICY, 99, true);
  }
}

const lookup: KeyLookup = {
  hash: (apiKey) => createHash('sha256').update(apiKey).digest(),
  lookup: async () => null,
};
const noSessions = { check: async () => undefined };
const quiet = { redisFallback: () => undefined, keySharing: () => undefined };
const logger = createLogger({ service: 'test', silent: true });

function access(gate: SharedGate, keys: KeyLookup = lookup, sessions: { check(session: Session): Promise<void> } = noSessions) {
  return new Access({ gate, keys, sessions, events: quiet }, logger);
}

describe('Access.admitNow', () => {
  it('answers a leased key at once, and leaves everything else to admit', async () => {
    const gate = new FakeGate();
    const a = access(gate);
    expect(a.admitNow(`Bearer ${KEY}`, '10.0.0.1')).toBeUndefined();
    gate.leasing = true;
    await a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.1');
    const calls = gate.calls.length;
    expect(a.admitNow(`Bearer ${KEY}`, '10.0.0.1')).toMatchObject({ subscriberId: 'sub_1', paidUntilMs, address: '10.0.0.1', decision: { allowed: true } });
    // Missing or malformed keys are admit's to refuse, with its errors.
    expect(a.admitNow(undefined, '10.0.0.1')).toBeUndefined();
    expect(a.admitNow('Bearer nope', '10.0.0.1')).toBeUndefined();
    await expect(a.admit({ authorization: 'Bearer nope' }, '10.0.0.1')).rejects.toBeInstanceOf(AuthError);
    expect(gate.calls).toHaveLength(calls);
  });

  it('leaves an address due for the sharing tracker to admit, even with a lease', async () => {
    const gate = new FakeGate();
    gate.leasing = true;
    const a = access(gate);
    await a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.1');
    expect(a.admitNow(`Bearer ${KEY}`, '10.0.0.1')).toBeDefined();
    expect(a.admitNow(`Bearer ${KEY}`, '10.0.0.9')).toBeUndefined();
  });

  it('stops answering a key once it is revoked (forget ends its lease)', async () => {
    const gate = new FakeGate();
    gate.leasing = true;
    const a = access(gate);
    await a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.1');
    expect(a.admitNow(`Bearer ${KEY}`, '10.0.0.1')).toBeDefined();
    a.forget(lookup.hash(KEY).toString('hex'));
    expect(a.admitNow(`Bearer ${KEY}`, '10.0.0.1')).toBeUndefined();
  });

  it('answers nothing for an address that has failed too often', async () => {
    const gate = new FakeGate();
    gate.leasing = true;
    const a = access(gate);
    await a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.2');
    await a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.3');
    for (let i = 0; i < 20; i++) await a.admit({ authorization: 'Bearer nope' }, '10.0.0.2').catch(() => undefined);
    expect(a.admitNow(`Bearer ${KEY}`, '10.0.0.2')).toBeUndefined();
    expect(a.admitNow(`Bearer ${KEY}`, '10.0.0.3')).toBeDefined();
  });
});

describe('Access.admit: who asks', () => {
  it('checks a dashboard session against its sign-out epoch before its key, and lets it through as its key', async () => {
    const gate = new FakeGate();
    const keyHash = lookup.hash(KEY);
    const session: Session = { sid: 's', keyHash: keyHash.toString('hex'), subscriberId: 'sub_1', epoch: 1, via: 'key', expiresAtMs: paidUntilMs };
    let signedOut = false;
    const a = access(gate, lookup, {
      check: async () => {
        if (signedOut) throw new AuthError('session_required', 'this session was signed out; sign in again');
      },
    });
    expect(await a.admit({ session }, '10.0.0.4')).toMatchObject({ subscriberId: 'sub_1', keyHash });
    signedOut = true;
    const calls = gate.calls.length;
    await expect(a.admit({ session }, '10.0.0.4')).rejects.toMatchObject({ code: 'session_required' });
    expect(gate.calls).toHaveLength(calls);
  });

  it('refuses a missing, malformed or unknown key with 401 and the code that says which', async () => {
    const gate: SharedGate = { check: async () => ({ state: 'miss' }), remember: async () => undefined, takeForAddress: new FakeGate().takeForAddress };
    const a = access(gate);
    await expect(a.admit({ authorization: undefined }, '10.0.0.5')).rejects.toMatchObject({ code: 'missing_api_key' });
    await expect(a.admit({ authorization: 'Basic abc' }, '10.0.0.5')).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.5')).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.5')).rejects.toBeInstanceOf(AuthError);
  });

  it('falls back to PostgreSQL and the in-process bucket when Redis fails, and says so once', async () => {
    const changes: boolean[] = [];
    const gate: SharedGate = {
      check: async () => {
        throw new Error('redis down');
      },
      remember: async () => undefined,
      takeForAddress: async () => {
        throw new Error('redis down');
      },
    };
    const keys: KeyLookup = { hash: lookup.hash, lookup: async () => ({ subscriberId: 'sub_pg', paidUntil: new Date(paidUntilMs) }) };
    const a = new Access({ gate, keys, sessions: noSessions, events: { redisFallback: (active) => void changes.push(active), keySharing: () => undefined } }, logger);
    expect(await a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.6')).toMatchObject({ subscriberId: 'sub_pg', decision: { allowed: true, remaining: 59 } });
    await a.admit({ authorization: `Bearer ${KEY}` }, '10.0.0.6');
    expect(changes).toEqual([true]);
    // Public endpoints: the address bucket in process.
    expect(await a.admitAddress('10.0.0.6')).toMatchObject({ allowed: true, remaining: IP_POLICY.capacity - 1 });
  });
});

describe('Access.admit: the failure guard under concurrency', () => {
  /** A gate that misses every key (a PostgreSQL lookup follows), and a lookup that counts. */
  function missing(known: boolean) {
    let lookups = 0;
    const cached = new Set<string>();
    const gate: SharedGate = {
      check: async (hash) => (cached.has(hash.toString('hex')) ? ok(50) : { state: 'miss' }),
      remember: async (hash) => void cached.add(hash.toString('hex')),
      takeForAddress: new FakeGate().takeForAddress,
    };
    const keys: KeyLookup = {
      hash: lookup.hash,
      lookup: async () => {
        lookups++;
        await new Promise((r) => setTimeout(r, 5));
        return known ? { subscriberId: 'sub_1', paidUntil: new Date(paidUntilMs) } : null;
      },
    };
    return { auth: access(gate, keys), lookups: () => lookups };
  }
  const randomKey = (i: number): string => `grid_${String(i).padStart(43, 'B').replace(/0/g, 'C')}`;
  const outcome = (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => 'ok',
      (e: unknown) => (e as { code?: string }).code ?? String(e),
    );

  it('lets a burst of concurrent unknown keys from one address look up no more keys than its failure burst', async () => {
    const { auth, lookups } = missing(false);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => outcome(auth.admit({ authorization: `Bearer ${randomKey(i)}` }, '10.9.0.1'))));
    // The default burst is 20 failures (refilling 0.5 a second: none while this runs).
    expect(answers.filter((a) => a === 'invalid_api_key')).toHaveLength(20);
    expect(answers.filter((a) => a === 'too_many_failed_auths')).toHaveLength(30);
    expect(lookups()).toBe(20);
  });

  it('serves every request of a concurrent burst of good keys from one address, beyond the failure burst', async () => {
    const { auth } = missing(true);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => outcome(auth.admit({ authorization: `Bearer ${randomKey(i)}` }, '10.9.0.2'))));
    expect(answers).toEqual(Array.from({ length: 50 }, () => 'ok'));
  });
});

describe('Access.admit: a key served in the last minute', () => {
  it('is checked concurrently however many requests from one address arrive together (it is not in doubt)', async () => {
    let inFlight = 0;
    let most = 0;
    const gate: SharedGate = {
      check: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return ok(50);
      },
      remember: async () => undefined,
      takeForAddress: new FakeGate().takeForAddress,
    };
    const a = access(gate);
    await a.admit({ authorization: `Bearer ${KEY}` }, '10.9.0.3');
    await Promise.all(Array.from({ length: 50 }, () => a.admit({ authorization: `Bearer ${KEY}` }, '10.9.0.3')));
    // The failure burst (20) does not hold them back.
    expect(most).toBe(50);
  });
});
