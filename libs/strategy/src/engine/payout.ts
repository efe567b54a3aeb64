import { floorDiv, mulDivFloor, u64Mod } from './exact';

const TWO_52 = 2 ** 52;

/** Share of a losing square's SOL that reaches the winners: 0.99 (admin fee) x 0.9 (vault). */
const POOL_FACTOR = 0.891;
/** A winner's own stake comes back less the 1% admin fee. */
const STAKE_BACK = 0.99;

/**
 * Floored payout of one round (SPEC 7.7) to a stake `sw` on the winning square, where
 * `dw` is what others deployed on it and `l` the integer sum of D_j + S_j over the
 * other squares. Evaluated left to right in doubles, exactly as the SPEC fixes it.
 */
export function payoutLamports(sw: number, dw: number, l: number): number {
  return sw > 0 ? Math.floor(STAKE_BACK * sw + (POOL_FACTOR * l * sw) / (dw + sw)) : 0;
}

/** ORE base units per whole ORE (11 decimals). */
export const ORE_UNITS = 100_000_000_000;

/**
 * SOL back to a stake `s` on one square of a `returns` round (SPEC 7.7), where others
 * deployed `d` there: with `t = d + s` and `admin = max(1, floor(t/100))`, the winning
 * square returns `floor(s * (t - admin) / t)`; any other also pays
 * `protocol = max(1, floor((t - admin)/10))` and returns
 * `floor(s * (t - admin - protocol) / t)`. A square of 1 lamport, whose two minimum fees
 * exceed it, returns 0 (never less). Exact (see exact.ts).
 */
export function returnedLamports(s: number, d: number, winner: boolean): number {
  const t = d + s;
  if (t < TWO_52) {
    // Every operand below 2^52: each Math.floor of a quotient is exact (see exact.ts's floorDiv).
    let kept = t - (t < 200 ? 1 : Math.floor(t / 100));
    if (!winner) kept -= kept < 20 ? 1 : Math.floor(kept / 10);
    if (kept <= 0) return 0;
    const p = s * kept;
    return p < TWO_52 ? Math.floor(p / t) : mulDivFloor(s, kept, t);
  }
  const admin = floorDiv(t, 100);
  let kept = t - admin;
  if (!winner) kept -= kept < 20 ? 1 : floorDiv(kept, 10);
  return kept <= 0 ? 0 : mulDivFloor(s, kept, t);
}

/**
 * ORE (base units) a stake `sw` on the winning square of a `returns` round earns
 * (SPEC 7.7), where others deployed `dw` there: the reward `r` pro rata when the round
 * was split, else all of it when the top-miner draw, `reverse_bits(rng) % (dw + sw)`
 * with our stake placed last, lands on it (>= dw); plus the motherlode pro rata.
 */
export function oreEarned(sw: number, dw: number, reward: number, motherlode: number, split: number, drawHi: number, drawLo: number): number {
  if (!(sw > 0)) return 0;
  const n = dw + sw;
  let ore = 0;
  if (reward > 0) {
    if (split === 1) ore = mulDivFloor(reward, sw, n);
    else if (u64Mod(drawHi, drawLo, n) >= dw) ore = reward;
  }
  if (motherlode > 0) ore += mulDivFloor(motherlode, sw, n);
  return ore;
}

/** `ore` base units valued at `cost` lamports per whole ORE, floored (0 when the cost is unknown). */
export function oreValueLamports(ore: number, cost: number): number {
  return ore > 0 && cost > 0 ? mulDivFloor(ore, cost, ORE_UNITS) : 0;
}
