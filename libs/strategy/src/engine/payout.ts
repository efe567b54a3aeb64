/** Share of a losing square's SOL that reaches the winners: 0.99 (admin fee) x 0.9 (vault). */
export const POOL_FACTOR = 0.891;
/** A winner's own stake comes back less the 1% admin fee. */
export const STAKE_BACK = 0.99;

/**
 * Floored payout of one round (SPEC 7.7) to a stake `sw` on the winning square, where
 * `dw` is what others deployed on it and `l` the integer sum of D_j + S_j over the
 * other squares. Evaluated left to right in doubles, exactly as the SPEC fixes it.
 */
export function payoutLamports(sw: number, dw: number, l: number): number {
  return sw > 0 ? Math.floor(STAKE_BACK * sw + (POOL_FACTOR * l * sw) / (dw + sw)) : 0;
}
