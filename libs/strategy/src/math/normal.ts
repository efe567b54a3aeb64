const SQRT_PI = Math.sqrt(Math.PI);
/** Below this, the series is used; above it, the continued fraction converges fast. */
const SERIES_LIMIT = 2.5;

/** erfc(x) for x >= 0 to near double precision (series below 2.5, continued fraction above). */
function erfcPositive(x: number): number {
  if (x < SERIES_LIMIT) {
    // erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)): all terms positive.
    let term = x;
    let sum = x;
    const x2 = 2 * x * x;
    for (let n = 1; n < 200 && term > sum * 1e-17; n++) {
      term *= x2 / (2 * n + 1);
      sum += term;
    }
    return 1 - ((2 / SQRT_PI) * Math.exp(-x * x) * sum);
  }
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))), by Lentz.
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? tiny : d;
    c = x + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

/** P(Z >= z) for a standard normal Z (one-sided upper tail). */
export function normalUpperTail(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  const x = z / Math.SQRT2;
  return x >= 0 ? erfcPositive(x) / 2 : 1 - erfcPositive(-x) / 2;
}
