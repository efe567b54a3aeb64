import { distributionMask, isSplitByRng, isSplitSquare } from './distribution';

const popcount = (m: number) => m.toString(2).split('').filter((b) => b === '1').length;

describe('distributionMask', () => {
  it('marks exactly 10 of the 25 squares solo, for every round', () => {
    for (let id = 0; id < 2000; id++) {
      const mask = distributionMask(id);
      expect(popcount(mask)).toBe(10);
      expect(mask >>> 25).toBe(0);
    }
  });

  it('gives the masks of an independent port of Round::distribution_mask', () => {
    // Values from a Python port of the Rust (keccak checked against the standard vectors).
    expect(distributionMask(0)).toBe(0x00c14cc5);
    expect(distributionMask(1)).toBe(0x00e9015c);
    expect(distributionMask(2)).toBe(0x01d98c01);
    expect(distributionMask(335_000)).toBe(0x0064217a);
    expect(distributionMask(400_000)).toBe(0x00a501e6);
  });

  it('splits a square whose bit is clear', () => {
    const mask = distributionMask(7);
    for (let s = 0; s < 25; s++) expect(isSplitSquare(7, s)).toBe((mask & (1 << s)) === 0);
  });

  it('splits about 15 squares in 25 over many rounds, each square alike', () => {
    const split = new Array<number>(25).fill(0);
    const rounds = 4000;
    for (let id = 0; id < rounds; id++) for (let s = 0; s < 25; s++) if (isSplitSquare(id, s)) split[s]!++;
    for (const n of split) expect(Math.abs(n / rounds - 0.6)).toBeLessThan(0.05);
  });
});

describe('isSplitByRng (before 2026-07-29)', () => {
  it('reads the u16 words of the reversed rng', () => {
    // reverse_bits(1) = 1 << 63: words 0, 0, 0, 0x8000, XOR 0x8000: even.
    expect(isSplitByRng(1n)).toBe(true);
    // reverse_bits(1 << 63) = 1: words 1, 0, 0, 0: odd.
    expect(isSplitByRng(1n << 63n)).toBe(false);
    // reverse_bits(3 << 62) = 3: odd.
    expect(isSplitByRng(3n << 62n)).toBe(false);
  });
});
