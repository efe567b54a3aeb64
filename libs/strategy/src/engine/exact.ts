/**
 * Exact integer arithmetic on doubles for the `returns` rule (SPEC 7.7), whose products
 * (a stake times a square's SOL, an ORE reward times a stake, ORE times its cost) exceed
 * 2^53. Each function takes a double fast path only where it is provably exact, an
 * exact limb computation on doubles otherwise, and BigInt beyond the limbs' range; all
 * of them are checked against BigInt by exact.test.ts.
 */

const TWO_18 = 262_144;
const INV_18 = 1 / TWO_18;
const TWO_32 = 4_294_967_296;
const TWO_51 = 2 ** 51;
const TWO_52 = 2 ** 52;
const TWO_40 = 2 ** 40;
const FRACTION_GUARD = 2 ** -11;

/**
 * floor(a / c) for non-negative integers a < 2^53 and c >= 1.
 * Exact: below 2^52 the correctly rounded quotient cannot reach the next integer
 * (that would need c * ceil(a/c) >= 2^53, but it is below a + c <= 2^53); above, BigInt.
 */
export function floorDiv(a: number, c: number): number {
  if (a < TWO_52 && c <= TWO_52) return Math.floor(a / c);
  return mulDivBig(a, 1, c);
}

/**
 * floor(a * b / c) for non-negative integers a, b < 2^53 and c >= 1, exactly.
 * - a*b < 2^52 (so the product is exact) and c <= 2^52: Math.floor(a*b/c) (see floorDiv).
 * - c < 2^51 and a quotient below 2^40 whose double estimate is not within 2^-11 of an
 *   integer: its floor (the estimate is within 2^-12 of the true quotient).
 * - c < 2^51 and a quotient below 2^52: the double estimate q is within 2 of the true
 *   quotient; the remainder a*b - q*c is computed exactly in 18-bit limbs and q corrected.
 * - otherwise BigInt.
 */
export function mulDivFloor(a: number, b: number, c: number): number {
  const p = a * b;
  // A rounded product below 2^52 means the exact one is below 2^52 too, and exact.
  if (p < TWO_52 && c <= TWO_52) return Math.floor(p / c);
  if (c < TWO_51) {
    const x = p / c;
    let q = Math.floor(x);
    // x is within a relative 2^-52 of a*b/c, so below 2^40 within 2^-12 of it: a fraction
    // farther than 2^-11 from an integer has the exact quotient's floor (no limbs needed).
    if (q < TWO_40) {
      const f = x - q;
      if (f > FRACTION_GUARD && f < 1 - FRACTION_GUARD) return q;
    }
    if (q < TWO_52) {
      let r = productDifference(a, b, q, c);
      while (r < 0) {
        q--;
        r += c;
      }
      while (r >= c) {
        q++;
        r -= c;
      }
      return q;
    }
  }
  return mulDivBig(a, b, c);
}

/** floor(a * b / c) in BigInt (kept out of the hot functions, which then stay small). */
function mulDivBig(a: number, b: number, c: number): number {
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}

/** (a * b) mod c for non-negative integers a, b < 2^53 and 1 <= c, exactly. */
export function mulMod(a: number, b: number, c: number): number {
  const p = a * b;
  if (p < TWO_52 && c <= TWO_52) return p - Math.floor(p / c) * c;
  if (c < TWO_51) {
    const q = Math.floor(p / c);
    if (q < TWO_52) {
      let r = productDifference(a, b, q, c);
      while (r < 0) r += c;
      while (r >= c) r -= c;
      return r;
    }
  }
  return Number((BigInt(a) * BigInt(b)) % BigInt(c));
}

/**
 * (hi * 2^32 + lo) mod n for a u64 given as two u32 halves and 1 <= n < 2^53, exactly:
 * ((hi mod n) * 2^32 mod n + lo) mod n, every step below 2^53 while n < 2^51.
 */
export function u64Mod(hi: number, lo: number, n: number): number {
  if (n < TWO_51) {
    const r = mulMod(hi - Math.floor(hi / n) * n, TWO_32, n) + lo;
    return r - Math.floor(r / n) * n;
  }
  return u64ModBig(hi, lo, n);
}

/** (hi * 2^32 + lo) mod n in BigInt. */
function u64ModBig(hi: number, lo: number, n: number): number {
  return Number(((BigInt(hi) << 32n) | BigInt(lo)) % BigInt(n));
}

/**
 * a*b - q*c exactly, for non-negative integers a, b, q, c below 2^53 whose difference is
 * below 2^53 in magnitude. Each is split into three 18-bit limbs; the product limbs are
 * below 3 * 2^36, their differences below 2^38, and Horner's scheme from the top keeps
 * every partial value below 2^53 (a partial sum is the difference divided by a power of
 * 2^18, plus under 2^21), so every operation is exact.
 */
function productDifference(a: number, b: number, q: number, c: number): number {
  // Limbs by scaling with a power of two and flooring, exact and much cheaper than `%`
  // (a double modulo is a runtime call in V8).
  const at = Math.floor(a * INV_18);
  const a0 = a - at * TWO_18;
  const a2 = Math.floor(at * INV_18);
  const a1 = at - a2 * TWO_18;
  const bt = Math.floor(b * INV_18);
  const b0 = b - bt * TWO_18;
  const b2 = Math.floor(bt * INV_18);
  const b1 = bt - b2 * TWO_18;
  const qt = Math.floor(q * INV_18);
  const q0 = q - qt * TWO_18;
  const q2 = Math.floor(qt * INV_18);
  const q1 = qt - q2 * TWO_18;
  const ct = Math.floor(c * INV_18);
  const c0 = c - ct * TWO_18;
  const c2 = Math.floor(ct * INV_18);
  const c1 = ct - c2 * TWO_18;
  const d4 = a2 * b2 - q2 * c2;
  const d3 = a1 * b2 + a2 * b1 - (q1 * c2 + q2 * c1);
  const d2 = a0 * b2 + a1 * b1 + a2 * b0 - (q0 * c2 + q1 * c1 + q2 * c0);
  const d1 = a0 * b1 + a1 * b0 - (q0 * c1 + q1 * c0);
  const d0 = a0 * b0 - q0 * c0;
  return (((d4 * TWO_18 + d3) * TWO_18 + d2) * TWO_18 + d1) * TWO_18 + d0;
}

/** The 32 bits of a u32 in reverse order (bit 0 becomes bit 31), as a u32. */
export function reverseBits32(x: number): number {
  let v = x >>> 0;
  v = ((v >>> 1) & 0x55555555) | ((v & 0x55555555) << 1);
  v = ((v >>> 2) & 0x33333333) | ((v & 0x33333333) << 2);
  v = ((v >>> 4) & 0x0f0f0f0f) | ((v & 0x0f0f0f0f) << 4);
  v = ((v >>> 8) & 0x00ff00ff) | ((v & 0x00ff00ff) << 8);
  v = (v >>> 16) | (v << 16);
  return v >>> 0;
}
