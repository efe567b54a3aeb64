import fc from 'fast-check';
import { floorDiv, mulDivFloor, mulMod, reverseBits32, u64Mod } from './exact';

const MAX = Number.MAX_SAFE_INTEGER;
/** Integers spread over every magnitude up to 2^53 (uniform draws would all be huge). */
const anyMagnitude = (min: number): fc.Arbitrary<number> =>
  fc.integer({ min: 0, max: 53 }).chain((bits) => fc.integer({ min, max: Math.max(min, Math.min(MAX, 2 ** bits - 1)) }));

describe('exact integer arithmetic on doubles', () => {
  it('floorDiv and mulDivFloor equal BigInt for every magnitude', () => {
    fc.assert(
      fc.property(anyMagnitude(0), anyMagnitude(0), anyMagnitude(1), (a, b, c) => {
        expect(floorDiv(a, c)).toBe(Number(BigInt(a) / BigInt(c)));
        expect(mulDivFloor(a, b, c)).toBe(Number((BigInt(a) * BigInt(b)) / BigInt(c)));
        expect(mulMod(a, b, c)).toBe(Number((BigInt(a) * BigInt(b)) % BigInt(c)));
      }),
      { numRuns: 5000 },
    );
  });

  it('mulDivFloor is exact where a double product is not: the shapes of the returns rule', () => {
    // stake x (t - fees) / t, ORE reward x stake / (D + S), ORE x cost / 1e11.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 44 }), (s, d) => {
        const t = d + s;
        const fees = Math.max(1, Math.floor(t / 100));
        expect(mulDivFloor(s, t - fees, t)).toBe(Number((BigInt(s) * BigInt(t - fees)) / BigInt(t)));
        expect(mulDivFloor(100_000_000_000, s, t)).toBe(Number((100_000_000_000n * BigInt(s)) / BigInt(t)));
        expect(mulDivFloor(s, 312_345_678, 100_000_000_000)).toBe(Number((BigInt(s) * 312_345_678n) / 100_000_000_000n));
      }),
      { numRuns: 5000 },
    );
    // Near-integer quotients, where a double estimate lands on the wrong side.
    const a = 2 ** 52 + 1;
    expect(mulDivFloor(a, 3, 3)).toBe(a);
    expect(mulDivFloor(a, 3 * 7, 7 * 3 - 1)).toBe(Number((BigInt(a) * 21n) / 20n));
    expect(mulDivFloor(MAX, MAX, MAX)).toBe(MAX);
    expect(mulDivFloor(MAX, MAX - 1, MAX)).toBe(MAX - 1);
  });

  it('mulDivFloor is exact for quotients within a hair of an integer (the double estimate\'s fast path declines them)', () => {
    // a*b past 2^52 with c chosen so a*b/c lands on, just above or just below an integer n.
    fc.assert(
      fc.property(fc.integer({ min: 2 ** 26, max: 2 ** 30 }), fc.integer({ min: 2 ** 26, max: 2 ** 30 }), fc.integer({ min: 1, max: 2 ** 39 }), (a, b, n) => {
        const c0 = (BigInt(a) * BigInt(b)) / BigInt(n);
        for (const c of [c0 - 1n, c0, c0 + 1n]) {
          if (c < 1n || c >= 2n ** 51n) continue;
          expect(mulDivFloor(a, b, Number(c))).toBe(Number((BigInt(a) * BigInt(b)) / c));
        }
      }),
      { numRuns: 5000 },
    );
    // The parimutuel shape: total_winnings x stake / (D_w + S_w).
    expect(mulDivFloor(2_475_000, 10_000_000, 13_000_000)).toBe(1_903_846);
    expect(mulDivFloor(21_384_000_000, 13_000_000, 13_000_000)).toBe(21_384_000_000);
  });

  it('u64Mod equals BigInt for any u64 and modulus below 2^53', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), anyMagnitude(1), (x, n) => {
        const hi = Number(x >> 32n);
        const lo = Number(x & 0xffff_ffffn);
        expect(u64Mod(hi, lo, n)).toBe(Number(x % BigInt(n)));
      }),
      { numRuns: 5000 },
    );
  });

  it('reverseBits32 mirrors the bits', () => {
    expect(reverseBits32(1)).toBe(0x8000_0000);
    expect(reverseBits32(0x8000_0000)).toBe(1);
    expect(reverseBits32(0x0000_00f0)).toBe(0x0f00_0000);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), (x) => {
        const expected = parseInt(x.toString(2).padStart(32, '0').split('').reverse().join(''), 2);
        expect(reverseBits32(x)).toBe(expected);
      }),
    );
  });
});
