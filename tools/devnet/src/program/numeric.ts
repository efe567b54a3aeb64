/**
 * steel's `Numeric` (regolith-labs/steel `lib/src/numeric.rs`): an I80F48 fixed point of the
 * `fixed` crate kept as its raw i128 bits, the unit being 2^48. The program holds the
 * refining factor in it (`miner_rewards_factor`, a Miner's `rewards_factor`). Every value
 * the program puts in one is at least 0, where the crate's truncation is a floor: each
 * operation here is exact integer arithmetic on the bits, then floored.
 */
const FRACTION_BITS = 48n;

/** `Numeric::from_u64`: `value << 48`. */
export function numericFromU64(value: number | bigint): bigint {
  return BigInt(value) << FRACTION_BITS;
}

/** `Numeric::from_fraction(n, d)`: `I80F48(n) / I80F48(d)`, i.e. `floor(n * 2^48 / d)` in bits. */
export function numericFraction(numerator: number | bigint, denominator: number | bigint): bigint {
  return (BigInt(numerator) << FRACTION_BITS) / BigInt(denominator);
}

/** `a * b` of two Numerics: `floor(a_bits * b_bits / 2^48)`. */
export function numericMul(a: bigint, b: bigint): bigint {
  return (a * b) >> FRACTION_BITS;
}

/** `Numeric::to_u64`: the floor, as an integer. */
export function numericToU64(bits: bigint): number {
  return Number(bits >> FRACTION_BITS);
}
