import { createHash } from 'node:crypto';
import { AuthError } from '@gridlab/errors';
import { createLogger } from '@gridlab/logger';
import { Authenticator } from './authenticate';
import type { CachedKey, KeyGate, KeyLookup, KeyRecord } from './ports';
import { MemoryLimiter } from '../domain/memory-limiter';
import { decide, KEY_POLICY } from '../domain/token-bucket';

const KEY = `grid_${'A'.repeat(43)}`;
const paidUntilMs = Date.now() + 86_400_000;
const ok = (remaining: number): CachedKey & { state: 'ok' } => ({
  state: 'ok',
  subscriberId: 'sub_1',
  paidUntilMs,
  decision: decide(KEY_POLICY, remaining, true),
  distinctAddresses: -1,
  newlyFlagged: false,
});

/** A gate that leases when told to, and otherwise answers `check` like a cache hit. */
class FakeGate implements KeyGate {
  leased = false;
  checks = 0;
  checkLeased(): (CachedKey & { state: 'ok' }) | null {
    return this.leased ? ok(40) : null;
  }
  async check(): Promise<CachedKey> {
    this.checks++;
    return ok(50);
  }
  async remember(_keyHash: Buffer, _record: KeyRecord): Promise<void> {}
  forget(): void {
    this.leased = false;
  }
}

const lookup: KeyLookup = {
  hash: (apiKey) => createHash('sha256').update(apiKey).digest(),
  lookup: async () => null,
};

function authenticator(gate: KeyGate) {
  return new Authenticator(gate, lookup, new MemoryLimiter(), { redisFallback: () => undefined, keySharing: () => undefined }, createLogger({ service: 'test', silent: true }));
}

describe('Authenticator.authenticateNow', () => {
  it('answers a leased key at once, and leaves everything else to authenticate', async () => {
    const gate = new FakeGate();
    const auth = authenticator(gate);
    expect(auth.authenticateNow(`Bearer ${KEY}`, '10.0.0.1')).toBeUndefined();
    gate.leased = true;
    expect(auth.authenticateNow(`Bearer ${KEY}`, '10.0.0.1')).toMatchObject({ subscriberId: 'sub_1', paidUntilMs, address: '10.0.0.1', decision: { allowed: true, remaining: 40 } });
    // Missing or malformed keys are authenticate's to refuse, with its errors.
    expect(auth.authenticateNow(undefined, '10.0.0.1')).toBeUndefined();
    expect(auth.authenticateNow('Bearer nope', '10.0.0.1')).toBeUndefined();
    await expect(auth.authenticate('Bearer nope', '10.0.0.1')).rejects.toBeInstanceOf(AuthError);
    expect(gate.checks).toBe(0);
  });

  it('stops answering a key once it is revoked (forget ends its lease)', () => {
    const gate = new FakeGate();
    gate.leased = true;
    const auth = authenticator(gate);
    expect(auth.authenticateNow(`Bearer ${KEY}`, '10.0.0.1')).toBeDefined();
    auth.forget(lookup.hash(KEY).toString('hex'));
    expect(auth.authenticateNow(`Bearer ${KEY}`, '10.0.0.1')).toBeUndefined();
  });

  it('answers nothing for an address that has failed too often', async () => {
    const gate = new FakeGate();
    gate.leased = true;
    const auth = authenticator(gate);
    for (let i = 0; i < 20; i++) await auth.authenticate('Bearer nope', '10.0.0.2').catch(() => undefined);
    expect(auth.authenticateNow(`Bearer ${KEY}`, '10.0.0.2')).toBeUndefined();
    expect(auth.authenticateNow(`Bearer ${KEY}`, '10.0.0.3')).toBeDefined();
  });
});

describe('Authenticator.authenticate: the failure guard under concurrency', () => {
  /** A gate that misses every key (a PostgreSQL lookup follows), and a lookup that counts. */
  function missing(known: boolean) {
    let lookups = 0;
    const cached = new Set<string>();
    const gate: KeyGate = {
      checkLeased: () => null,
      check: async (hash) => (cached.has(hash.toString('hex')) ? ok(50) : { state: 'miss' }),
      remember: async (hash) => void cached.add(hash.toString('hex')),
      forget: () => undefined,
    };
    const keys: KeyLookup = {
      hash: lookup.hash,
      lookup: async () => {
        lookups++;
        await new Promise((r) => setTimeout(r, 5));
        return known ? { subscriberId: 'sub_1', paidUntil: new Date(paidUntilMs) } : null;
      },
    };
    const auth = new Authenticator(gate, keys, new MemoryLimiter(), { redisFallback: () => undefined, keySharing: () => undefined }, createLogger({ service: 'test', silent: true }));
    return { auth, lookups: () => lookups };
  }
  const randomKey = (i: number): string => `grid_${String(i).padStart(43, 'B').replace(/0/g, 'C')}`;
  const outcome = (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => 'ok',
      (e: unknown) => (e as { code?: string }).code ?? String(e),
    );

  it('lets a burst of concurrent unknown keys from one address look up no more keys than its failure burst', async () => {
    const { auth, lookups } = missing(false);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => outcome(auth.authenticate(`Bearer ${randomKey(i)}`, '10.9.0.1'))));
    // The default burst is 20 failures (refilling 0.5 a second: none while this runs).
    expect(answers.filter((a) => a === 'invalid_api_key')).toHaveLength(20);
    expect(answers.filter((a) => a === 'too_many_failed_auths')).toHaveLength(30);
    expect(lookups()).toBe(20);
  });

  it('serves every request of a concurrent burst of good keys from one address, beyond the failure burst', async () => {
    const { auth } = missing(true);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => outcome(auth.authenticate(`Bearer ${randomKey(i)}`, '10.9.0.2'))));
    expect(answers).toEqual(Array.from({ length: 50 }, () => 'ok'));
  });
});

describe('Authenticator.authenticate: a key served in the last minute', () => {
  it('is checked concurrently however many requests from one address arrive together (it is not in doubt)', async () => {
    let inFlight = 0;
    let most = 0;
    const gate: KeyGate = {
      checkLeased: () => null,
      check: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return ok(50);
      },
      remember: async () => undefined,
      forget: () => undefined,
    };
    const auth = authenticator(gate);
    await auth.authenticate(`Bearer ${KEY}`, '10.9.0.3');
    await Promise.all(Array.from({ length: 50 }, () => auth.authenticate(`Bearer ${KEY}`, '10.9.0.3')));
    // The failure burst (20) does not hold them back.
    expect(most).toBe(50);
  });
});
