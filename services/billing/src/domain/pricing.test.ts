import { parseLadder, priceSheet, quote, tierIndex, toBaseUnits, toTokens } from './pricing';

const ladder = parseLadder('0:0.1,100:0.2,250:0.4,500:0.8', 11);

describe('price ladder', () => {
  it('parses decimal prices into exact base units', () => {
    expect(ladder.steps.map((s) => [s.minActive, s.monthly])).toEqual([
      [0, 10_000_000_000n],
      [100, 20_000_000_000n],
      [250, 40_000_000_000n],
      [500, 80_000_000_000n],
    ]);
    expect(toBaseUnits('1', 11)).toBe(100_000_000_000n);
    expect(toBaseUnits('0.00000000001', 11)).toBe(1n);
    expect(() => toBaseUnits('0.000000000001', 11)).toThrow(/more than 11 decimals/);
    expect(() => parseLadder('10:0.1', 11)).toThrow(/start at 0/);
    expect(() => parseLadder('0:0.1,100:0.2,100:0.3', 11)).toThrow(/ascend/);
    expect(() => parseLadder('0:0', 11)).toThrow(/positive/);
  });

  it('picks the step by active count: <100, 100-249, 250-499, 500+', () => {
    expect([0, 99, 100, 249, 250, 499, 500, 10_000].map((n) => tierIndex(ladder, n))).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
  });

  it('shows the next threshold, null at the top', () => {
    expect(priceSheet(ladder, 99)).toEqual({ activeSubs: 99, tokenNow: 0.1, nextThreshold: 100, tokenAtNextThreshold: 0.2 });
    expect(priceSheet(ladder, 250)).toEqual({ activeSubs: 250, tokenNow: 0.4, nextThreshold: 500, tokenAtNextThreshold: 0.8 });
    expect(priceSheet(ladder, 700)).toEqual({ activeSubs: 700, tokenNow: 0.8, nextThreshold: null, tokenAtNextThreshold: null });
  });

  it('quotes monthly, annual = 3x without referral discount, referral = 10% off monthly', () => {
    expect(quote(ladder, 5, 'monthly', false)).toBe(10_000_000_000n);
    expect(quote(ladder, 5, 'monthly', true)).toBe(9_000_000_000n);
    expect(quote(ladder, 5, 'annual', false)).toBe(30_000_000_000n);
    expect(quote(ladder, 5, 'annual', true)).toBe(30_000_000_000n);
    expect(quote(ladder, 100, 'monthly', false)).toBe(20_000_000_000n);
    // 10% off rounds down to a whole base unit.
    expect(quote(parseLadder('0:0.00000000007', 11), 0, 'monthly', true)).toBe(6n);
    expect(toTokens(9_000_000_000n, 11)).toBe(0.09);
  });
});
