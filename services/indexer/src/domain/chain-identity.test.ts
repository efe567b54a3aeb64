import { legacyObjection, mismatch } from './chain-identity';

const evidence = { latestStoredId: 100, latestStoredSlotHash: 'aa', boardRoundId: 150, chainSlotHashOfLatest: null };

describe('chain identity', () => {
  it('explains a mismatch with both hashes and how to start over', () => {
    const verdict = mismatch('NewHash', { genesisHash: 'OldHash', recordedAt: new Date('2025-01-02T03:04:05Z') });
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.reason).toContain('NewHash');
    expect(verdict.reason).toContain('OldHash');
    expect(verdict.reason).toContain('2025-01-02T03:04:05.000Z');
    expect(verdict.reason).toContain('make reset');
    expect(verdict.reason).toContain('gridlab admin chain');
  });

  it('adopts rounds stored before identities when the chain is past them and agrees on the newest', () => {
    expect(legacyObjection('H', evidence)).toBeNull();
    expect(legacyObjection('H', { ...evidence, chainSlotHashOfLatest: 'aa' })).toBeNull();
  });

  it('refuses them when the chain is behind them (started again from genesis) or disagrees on the newest', () => {
    const behind = legacyObjection('H', { ...evidence, boardRoundId: 100 });
    expect(behind?.ok).toBe(false);
    expect(behind?.ok === false && behind.reason).toMatch(/reach round 100 but the chain's board is at round 100/);
    const other = legacyObjection('H', { ...evidence, chainSlotHashOfLatest: 'bb' });
    expect(other?.ok === false && other.reason).toMatch(/round 100 differs/);
  });
});
