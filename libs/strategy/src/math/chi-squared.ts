/**
 * Upper-tail p-value of a chi-squared statistic with 24 degrees of freedom, in the
 * closed form SPEC 7.5 fixes: exp(-x/2) * sum_{i=0..11} (x/2)^i / i!.
 */
export function chiSquaredPValue24(x: number): number {
  const half = x / 2;
  let term = 1;
  let sum = 1;
  for (let i = 1; i <= 11; i++) {
    term = (term * half) / i;
    sum += term;
  }
  return Math.exp(-half) * sum;
}
