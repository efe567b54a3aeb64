import { baseUnitsToDecimal, countdown, intensity, pct, pValue, signedSol, sol, solanaPayUrl } from './format';

describe('format', () => {
  it('shows SOL, not lamports', () => {
    expect(sol(1_250_000_000)).toBe('1.25 SOL');
    expect(sol(0)).toBe('0 SOL');
    expect(sol(123_456_789_000)).toBe('123.4568 SOL');
    expect(signedSol(0.5)).toBe('+0.5 SOL');
    expect(signedSol(-0.25)).toBe('−0.25 SOL');
    expect(signedSol(-0.00004)).toBe('0 SOL');
    expect(signedSol(-0.00004, 6)).toBe('−0.00004 SOL');
  });

  it('formats percentages, countdowns, p-values and heat', () => {
    expect(pct(0.1234)).toBe('12.34%');
    expect(countdown(75)).toBe('1:15');
    expect(countdown(-3)).toBe('0:00');
    expect(pValue(0.0001)).toBe('< 0.001');
    expect(pValue(0.5)).toBe('0.500');
    expect(intensity(5, 10)).toBe(0.5);
    expect(intensity(5, 0)).toBe(0);
  });

  it('builds the Solana Pay URL with the exact token amount', () => {
    expect(baseUnitsToDecimal('1500000', 6)).toBe('1.5');
    expect(baseUnitsToDecimal('7', 6)).toBe('0.000007');
    expect(baseUnitsToDecimal('2000000', 6)).toBe('2');
    expect(solanaPayUrl({ to: 'Treasury111', amount: '1.5', mint: 'Mint111', memo: 'gl:abc' })).toBe('solana:Treasury111?amount=1.5&spl-token=Mint111&memo=gl%3Aabc');
  });
});
