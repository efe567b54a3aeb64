import fc from 'fast-check';
import { nextAttemptAt, RETRY_WINDOW_MS } from './schedule';

const FIRST = new Date('2026-03-01T12:00:00.000Z');
const offset = (d: Date | null): number | null => (d === null ? null : d.getTime() - FIRST.getTime());

/** Every attempt's offset from the first, for one jitter per retry. */
function attempts(jitters: readonly number[]): number[] {
  const offsets = [0];
  for (let n = 1; ; n++) {
    const at = offset(nextAttemptAt(FIRST, n, jitters[(n - 1) % jitters.length]!));
    if (at === null) return offsets;
    offsets.push(at);
  }
}

describe('nextAttemptAt', () => {
  it('follows the documented schedule without jitter', () => {
    const s = 1000;
    const m = 60 * s;
    const h = 60 * m;
    expect(attempts([0])).toEqual([
      0,
      5 * s,
      35 * s,
      2 * m + 35 * s,
      12 * m + 35 * s,
      42 * m + 35 * s,
      h + 42 * m + 35 * s,
      ...Array.from({ length: 11 }, (_, i) => (3 + 2 * i) * h + 42 * m + 35 * s),
    ]);
  });

  it('stretches a delay by at most a fifth', () => {
    expect(offset(nextAttemptAt(FIRST, 1, 1))).toBe(6_000);
    expect(offset(nextAttemptAt(FIRST, 2, 0.5))).toBe(5_000 + 33_000);
  });

  it('is strictly increasing, ends within 24 h and gives 18 attempts whatever the jitters', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }), (jitters) => {
        const offsets = attempts(jitters);
        expect(offsets).toHaveLength(18);
        for (let i = 1; i < offsets.length; i++) expect(offsets[i]!).toBeGreaterThan(offsets[i - 1]!);
        expect(offsets[offsets.length - 1]!).toBeLessThanOrEqual(RETRY_WINDOW_MS);
      }),
    );
  });

  it('refuses an attempt count below 1 and a jitter outside [0, 1]', () => {
    expect(() => nextAttemptAt(FIRST, 0, 0)).toThrow(RangeError);
    expect(() => nextAttemptAt(FIRST, 1, 1.5)).toThrow(RangeError);
    expect(() => nextAttemptAt(FIRST, 1, Number.NaN)).toThrow(RangeError);
  });
});
