import type { Distribution } from '@gridlab/contracts';
import type { Prng } from './prng';
const BLOCK_FIELDS = 5;
/** Resamples between yield points (a few ms of work). */
const YIELD_EVERY = 100;

/** p5 / p50 / p95 and mean of a resampled figure (the contract's type). */
export type { Distribution } from '@gridlab/contracts';

/** Resamples `first` (inclusive) to `end` (exclusive) of a bootstrap's sequence. */
export interface IterationRange {
  readonly first: number;
  readonly end: number;
}

/** Raw (lamport) outcomes of each resample. */
export interface BootstrapSamples {
  readonly blockLength: number;
  readonly net: Float64Array;
  readonly roiPercent: Float64Array;
  readonly maxDrawdown: Float64Array;
}

/** Quantile with linear interpolation between order statistics (numpy's default). */
export function quantile(sorted: Float64Array, q: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Distribution of `values`, each divided by `divisor` (1e9: lamports to SOL). */
export function distribution(values: Float64Array, divisor = 1): Distribution {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of values) sum += v;
  return {
    p5: quantile(sorted, 0.05) / divisor,
    p50: quantile(sorted, 0.5) / divisor,
    p95: quantile(sorted, 0.95) / divisor,
    mean: values.length === 0 ? 0 : sum / values.length / divisor,
  };
}

/**
 * Moving block bootstrap of a per-round PnL series: each resample concatenates blocks
 * of `blockLength` consecutive rounds starting at uniform positions (the last block cut
 * to length), and reports its net PnL, ROI (net over the resampled stakes) and maximum
 * drawdown. Each block's sum, prefix extremes and inner drawdown are precomputed
 * (blockTable), so a resample costs one step per block, not per round.
 *
 * `range` computes only those resamples of the `iterations`, exactly as the whole run
 * gives them (the generator is advanced past the earlier resamples' draws), so a
 * bootstrap can be split across threads and its parts concatenated.
 */
export function movingBlockBootstrap(
  pnl: Float64Array,
  stake: Float64Array,
  iterations: number,
  blockLength: number,
  random: Prng,
  yieldPoint: () => void = () => undefined,
  range: IterationRange = { first: 0, end: iterations },
): BootstrapSamples {
  const n = pnl.length;
  const { first, end } = range;
  if (!(Number.isInteger(first) && Number.isInteger(end) && 0 <= first && first <= end && end <= iterations)) {
    throw new RangeError(`resamples ${first} to ${end} are not within 0 to ${iterations}`);
  }
  const net = new Float64Array(end - first);
  const roiPercent = new Float64Array(end - first);
  const maxDrawdown = new Float64Array(end - first);
  const b = Math.min(blockLength, n);
  if (n === 0) return { blockLength: b, net, roiPercent, maxDrawdown };
  const starts = n - b + 1;
  const blocks = blockTable(pnl, stake, b);
  const fullBlocks = Math.floor(n / b);
  const rest = n - fullBlocks * b;
  const picks = new Int32Array(fullBlocks);
  random.skip(first * (fullBlocks + (rest > 0 ? 1 : 0)));
  for (let it = first; it < end; it++) {
    if (it % YIELD_EVERY === YIELD_EVERY - 1) yieldPoint();
    // Draw the blocks first: the walk below then has independent loads the CPU overlaps.
    random.drawIndices(picks, fullBlocks, starts, BLOCK_FIELDS);
    let level = 0;
    let peak = 0;
    let dd = 0;
    let staked = 0;
    for (let k = 0; k < fullBlocks; k++) {
      const at = picks[k]!;
      // Within the block the fall is from the running peak or from a peak inside it
      // (Math.max, not branches: a mispredicted branch costs more than the step).
      dd = Math.max(dd, peak - level - blocks[at + 2]!, blocks[at + 4]!);
      peak = Math.max(peak, level + blocks[at + 3]!);
      level += blocks[at]!;
      staked += blocks[at + 1]!;
    }
    if (rest > 0) {
      const s = Math.floor(random.next() * starts);
      for (let t = s; t < s + rest; t++) {
        level += pnl[t]!;
        staked += stake[t]!;
        if (level > peak) peak = level;
        else if (peak - level > dd) dd = peak - level;
      }
    }
    const at = it - first;
    net[at] = level;
    roiPercent[at] = staked > 0 ? (100 * level) / staked : 0;
    maxDrawdown[at] = dd;
  }
  return { blockLength: b, net, roiPercent, maxDrawdown };
}

/** Largest |value| blockTable's O(n) path takes: 2·b of them sum exactly (below 2^53) for any b up to 2^5. */
const EXACT_LIMIT = 2 ** 46;
const EXACT_BLOCK = 32;

/**
 * Per block start s (0 to n − b), interleaved so one resampled block is one read, not
 * five: the sum of pnl[s, s + b), its stake, the lowest and highest prefix sum (with the
 * empty prefix 0) and the largest fall from a running peak inside it.
 *
 * Every block is the end of one b-aligned chunk followed by the start of the next, and
 * those figures combine: (sum, lo, hi, dd) of A then B is (A.sum + B.sum, min(A.lo,
 * A.sum + B.lo), max(A.hi, A.sum + B.hi), max(A.dd, B.dd, A.hi − A.sum − B.lo)). So each
 * chunk's suffixes (right to left) and the next chunk's prefixes (left to right) give
 * every block in O(n) instead of O(n·b). The per-round PnL and stakes are whole lamports
 * (SPEC 7.7 floors every payout): their sums are exact in any order, so the figures equal
 * the block-by-block walk's bit for bit. Any other series takes that walk.
 */
export function blockTable(pnl: Float64Array, stake: Float64Array, b: number): Float64Array {
  const n = pnl.length;
  const starts = n - b + 1;
  const blocks = new Float64Array(Math.max(0, starts) * BLOCK_FIELDS);
  if (starts <= 0) return blocks;
  if (b > EXACT_BLOCK || !wholeAndSmall(pnl) || !wholeAndSmall(stake)) {
    for (let s = 0; s < starts; s++) walkBlock(pnl, stake, s, b, blocks);
    return blocks;
  }
  // The current chunk's suffixes: [s, chunk end) for each s in it, by offset in the chunk.
  const suffix = new Float64Array(b * BLOCK_FIELDS);
  for (let first = 0; first < starts; first += b) {
    let sum = 0;
    let st = 0;
    let lo = 0;
    let hi = 0;
    let dd = 0;
    for (let k = b - 1; k >= 0; k--) {
      // One round x before the suffix: its fall, then the suffix's low, from x's level.
      const x = pnl[first + k]!;
      dd = Math.max(dd, Math.max(0, -x) - lo);
      sum = x + sum;
      st = stake[first + k]! + st;
      lo = Math.min(0, x + lo);
      hi = Math.max(0, x + hi);
      put(suffix, k, sum, st, lo, hi, dd);
    }
    blocks.set(suffix.subarray(0, BLOCK_FIELDS), first * BLOCK_FIELDS);
    // The next chunk's prefixes, walked as a block is, each closing the block that starts k later.
    let qSum = 0;
    let qSt = 0;
    let qLo = 0;
    let qHi = 0;
    let qDd = 0;
    for (let k = 1; k < b && first + k < starts; k++) {
      const e = first + b + k - 1;
      qSum += pnl[e]!;
      qSt += stake[e]!;
      qHi = Math.max(qHi, qSum);
      qLo = Math.min(qLo, qSum);
      qDd = Math.max(qDd, qHi - qSum);
      const a = k * BLOCK_FIELDS;
      const aSum = suffix[a]!;
      const aHi = suffix[a + 3]!;
      put(blocks, first + k, aSum + qSum, suffix[a + 1]! + qSt, Math.min(suffix[a + 2]!, aSum + qLo), Math.max(aHi, aSum + qHi), Math.max(suffix[a + 4]!, qDd, aHi - (aSum + qLo)));
    }
  }
  return blocks;
}

/** True when every value is a whole number of magnitude at most EXACT_LIMIT. */
function wholeAndSmall(values: Float64Array): boolean {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(Math.abs(v) <= EXACT_LIMIT && Math.floor(v) === v)) return false;
  }
  return true;
}

/** The block starting at s, round by round, into its place in `blocks`. */
function walkBlock(pnl: Float64Array, stake: Float64Array, s: number, b: number, blocks: Float64Array): void {
  let prefix = 0;
  let lo = 0;
  let hi = 0;
  let dd = 0;
  let st = 0;
  for (let t = s; t < s + b; t++) {
    prefix += pnl[t]!;
    st += stake[t]!;
    // Math.max and min, not branches: on a PnL series these go either way at random.
    hi = Math.max(hi, prefix);
    lo = Math.min(lo, prefix);
    dd = Math.max(dd, hi - prefix);
  }
  put(blocks, s, prefix, st, lo, hi, dd);
}

/** Entry i of a block table (sum, stake, lowest and highest prefix, inner fall). */
function put(table: Float64Array, i: number, sum: number, stake: number, lo: number, hi: number, dd: number): void {
  const at = i * BLOCK_FIELDS;
  table[at] = sum;
  table[at + 1] = stake;
  table[at + 2] = lo;
  table[at + 3] = hi;
  table[at + 4] = dd;
}
