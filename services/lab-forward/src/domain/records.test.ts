import { sessionStartRound, newStrategyId, strategyName } from './records';

describe('strategy records', () => {
  it('trims names and accepts 1..80 characters', () => {
    expect(strategyName('  cold five  ')).toBe('cold five');
    expect(strategyName('x'.repeat(80))).toHaveLength(80);
  });

  it('rejects blank and over-long names with the /name path', () => {
    for (const bad of ['   ', 'x'.repeat(81)]) {
      expect(() => strategyName(bad)).toThrow(expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path: '/name' })] }));
    }
  });

  it('makes stg_ + 22 base58 ids', () => {
    let n = 0;
    const id = newStrategyId(() => n++ % 58);
    expect(id).toMatch(/^stg_[1-9A-HJ-NP-Za-km-z]{22}$/);
    expect(id.startsWith('stg_123456789')).toBe(true);
  });

  it('starts a session after both the settled and the stored rounds', () => {
    expect(sessionStartRound(null, null)).toBe(1);
    expect(sessionStartRound(10, 12)).toBe(13);
    expect(sessionStartRound(12, 10)).toBe(13);
  });
});
