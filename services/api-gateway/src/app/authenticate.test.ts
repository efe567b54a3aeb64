import { createHash } from 'node:crypto';
import { AuthError } from '@gridlab/errors';
import { createLogger } from '@gridlab/logger';
import { Authenticator, type KeyLookup } from './authenticate';
import type { CachedKey, KeyGate, KeyRecord } from './ports';
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
