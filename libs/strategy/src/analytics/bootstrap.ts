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
 * drawdown. Each block's sum, prefix extremes and inner drawdown are precomputed, so a
 * resample costs one step per block, not per round.
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
  // Per block start, interleaved so one resampled block is one cache line, not five:
  // sum, stake, lowest prefix, highest prefix, inner drawdown.
  const blocks = new Float64Array(starts * BLOCK_FIELDS);
  for (let s = 0; s < starts; s++) {
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
    const at = s * BLOCK_FIELDS;
    blocks[at] = prefix;
    blocks[at + 1] = st;
    blocks[at + 2] = lo;
    blocks[at + 3] = hi;
    blocks[at + 4] = dd;
  }
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
