import { floorDiv, mulDivFloor, u64Mod } from './exact';

const TWO_52 = 2 ** 52;

/**
 * The revision of the payout arithmetic: `p2` is the program's integer parimutuel rule (the
 * float form before it was a lamport or two off). Stored and cached results name it.
 */
export const PAYOUT_REVISION = 'p2';

/** floor(x / 100) for an integer 0 <= x < 2^52: the rounded product is within 1 of it, corrected once. */
function div100(x: number): number {
  const q = Math.floor(x * 0.01);
  const r = x - q * 100;
  return r < 0 ? q - 1 : r >= 100 ? q + 1 : q;
}

/** floor(x / 10) for an integer 0 <= x < 2^52, as div100. */
function div10(x: number): number {
  const q = Math.floor(x * 0.1);
  const r = x - q * 10;
  return r < 0 ? q - 1 : r >= 10 ? q + 1 : q;
}

/**
 * Payout of one round (SPEC 7.7) to a stake `sw` on the winning square of a `parimutuel`
 * round, where others deployed `dw` there and `l` is the integer sum of D_j + S_j over the
 * other squares, in the program's integer arithmetic (`reset.rs` and `checkpoint.rs` at
 * 3112ab7): `w = l - l/100`, `total_winnings = w - w/10`, and the stake gets
 * `sw - max(1, sw/100) + floor(total_winnings * sw / (dw + sw))`. Exact (see exact.ts).
 */
export function payoutLamports(sw: number, dw: number, l: number): number {
  if (!(sw > 0)) return 0;
  let winnings: number;
  if (l < TWO_52) {
    // Inline, as this runs per square bet and round in analytics: quotients by 100 and 10 as a
    // product with the reciprocal, corrected by one step (below 2^52 the product is within 1).
    const afterFee = l - div100(l);
    winnings = afterFee - div10(afterFee);
  } else {
    const afterFee = l - floorDiv(l, 100);
    winnings = afterFee - floorDiv(afterFee, 10);
  }
  return sw - (sw < 200 ? 1 : div100(sw)) + mulDivFloor(winnings, sw, dw + sw);
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
