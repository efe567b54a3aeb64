/**
 * Upper-tail p-value of a chi-squared statistic with an even number of degrees of
 * freedom k: `exp(-x/2) * sum_{i < k/2} (x/2)^i / i!` (exact for even k; SPEC 7.5 states
 * it for k = 24, the 25 squares' uniformity test). The one implementation: the gateway's
 * /stats and the engine's chi-squared filter both call it.
 */
export function chiSquaredPValue(statistic: number, degreesOfFreedom: number): number {
  if (degreesOfFreedom <= 0 || degreesOfFreedom % 2 !== 0) throw new RangeError('degrees of freedom must be even and positive');
  if (statistic <= 0) return 1;
  const half = statistic / 2;
  let term = 1;
  let sum = 1;
  for (let i = 1; i < degreesOfFreedom / 2; i++) {
    term *= half / i;
    sum += term;
  }
  return Math.min(1, Math.exp(-half) * sum);
}

/** Pearson's statistic for observed counts against equal expected counts. */
export function uniformityStatistic(observed: readonly number[]): { statistic: number; sampleSize: number } {
  const sampleSize = observed.reduce((a, b) => a + b, 0);
  if (sampleSize === 0) return { statistic: 0, sampleSize };
  const expected = sampleSize / observed.length;
  const statistic = observed.reduce((acc, o) => acc + ((o - expected) * (o - expected)) / expected, 0);
  return { statistic, sampleSize };
}

/** The 25 squares' uniformity test (24 degrees of freedom), as the engine's filter and /stats use it. */
export function chiSquaredPValue24(statistic: number): number {
  return chiSquaredPValue(statistic, 24);
}
