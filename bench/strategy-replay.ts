/**
 * The strategy bench's measurements (bench/strategy.bench.ts runs them): compiled with the
 * engine into one bundle, as production compiles it, and run in a process set up as
 * lab-backtest's.
 */
import { syntheticRounds } from '@gridlab/testing';
import { BASE_STRATEGIES, History, analyze, createRunner, normalizeDsl, oreEarned, oreValueLamports, payoutLamports, returnedLamports, type Dsl } from '@gridlab/strategy';
import { percentile } from './stats';
import type { BenchFigure } from './types';

const ROUNDS = 1_000_000;
const ANALYTICS_ROUNDS = 100_000;
const RUNS = 9;
const TARGET_RATE = 2_000_000;
const TARGET_RATIO = 3;
const TARGET_ANALYTICS_MS = 1000;
const BET = 1_000_000;
const FEE = 5000;

/** The payout rule a history's rounds were settled under. */
type Era = 'parimutuel' | 'returns';

async function history(count: number, era: Era = 'parimutuel'): Promise<History> {
  const h = new History(count);
  for (let first = 1; first <= count; first += 50_000) {
    h.appendMany(syntheticRounds(Math.min(50_000, count - first + 1), { seed: first, firstId: first, payoutRule: era }));
    // Generation is CPU-bound; let the event loop breathe between chunks.
    await new Promise((r) => setImmediate(r));
  }
  return h;
}

/** The bets a DSL places on every round, as flat arrays (round i's bets at start[i]..start[i+1]). */
function captureBets(dsl: Dsl, h: History): { start: Int32Array; squares: Int8Array; stakes: Float64Array } {
  const start = new Int32Array(h.length + 1);
  const squares = new Int8Array(h.length * 25);
  const stakes = new Float64Array(h.length * 25);
  const runner = createRunner(dsl, h);
  let n = 0;
  for (let i = 0; i < h.length; i++) {
    start[i] = n;
    const { decision } = runner.step();
    for (let j = 0; j < decision.squares.length; j++) {
      squares[n] = decision.squares[j]!;
      stakes[n] = decision.stakesLamports[j]!;
      n++;
    }
  }
  start[h.length] = n;
  return { start, squares, stakes };
}

/**
 * The bare loop under `returns`: per bet square the SOL back (SPEC 7.7), and on the
 * winning square the ORE earned and its value, over the same history columns.
 */
function bareReturnsLoop(h: History, bets: ReturnType<typeof captureBets>): number {
  const { start, squares, stakes } = bets;
  const { winning, winnerDeployed, deployed, oreReward, motherlode, split, drawHi, drawLo, productionCost } = h;
  let net = 0;
  for (let i = 0; i < h.length; i++) {
    const w = winning[i]!;
    const a = start[i]!;
    const b = start[i + 1]!;
    if (w < 0 || a === b) continue;
    const base = i * 25;
    let sum = 0;
    let sw = 0;
    let back = 0;
    for (let j = a; j < b; j++) {
      const st = stakes[j]!;
      const s = squares[j]!;
      sum += st;
      if (s === w) sw = st;
      back += returnedLamports(st, deployed[base + s]!, s === w);
    }
    if (sw > 0) back += oreValueLamports(oreEarned(sw, winnerDeployed[i]!, oreReward[i]!, motherlode[i]!, split[i]!, drawHi[i]!, drawLo[i]!), productionCost[i]!);
    net += back - sum - FEE;
  }
  return net;
}

/** The bare loop: the payouts of the given bets over the same history columns, nothing else. */
function bareLoop(h: History, bets: ReturnType<typeof captureBets>): number {
  const { start, squares, stakes } = bets;
  const { winning, winnerDeployed, sumDeployed } = h;
  let net = 0;
  for (let i = 0; i < h.length; i++) {
    const w = winning[i]!;
    const a = start[i]!;
    const b = start[i + 1]!;
    if (w < 0 || a === b) continue;
    let sum = 0;
    let sw = 0;
    for (let j = a; j < b; j++) {
      const st = stakes[j]!;
      sum += st;
      if (squares[j] === w) sw = st;
    }
    const dw = winnerDeployed[i]!;
    net += payoutLamports(sw, dw, sumDeployed[i]! - dw + sum - sw) - sum - FEE;
  }
  return net;
}

/**
 * The engine's replay as a backtest runs it: every round decided, settled and recorded
 * (per-round PnL), then the runner released, so the next run on the thread takes its
 * record arrays. Assembling the JSON-shaped result in between is timed separately
 * (`strategy.resultAssemblyMs`).
 */
function engineRun(dsl: Dsl, h: History): number {
  const runner = createRunner(dsl, h, { record: true });
  runner.runTo(h.length);
  runner.release();
  return runner.stats.net;
}

function timed(fn: () => number): { ms: number; value: number } {
  const started = performance.now();
  const value = fn();
  return { ms: performance.now() - started, value };
}

/**
 * Strategy engine: each base strategy with flat sizing replayed over 1,000,000 synthetic
 * rounds (median of nine runs), against a bare loop that only computes the payouts of
 * the same bets over the same arrays (the ratio is the median over nine back-to-back
 * pairs); then analytics over 100,000 rounds, uncached.
 */
export async function measure(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  let firstHotMs = 0;
  // One era at a time: a history of 1M rounds holds ~400 MB.
  for (const era of ['parimutuel', 'returns'] as const) {
    const h = await history(ROUNDS, era);
    const bare = era === 'returns' ? bareReturnsLoop : bareLoop;
    // The parimutuel figures keep the keys they always had.
    const prefix = era === 'returns' ? 'strategy.returns' : 'strategy';
    const suffix = era === 'returns' ? ', returns era' : '';
    const dsls = BASE_STRATEGIES.map((base) =>
      normalizeDsl({
        base_strategy: base,
        params: { bet_size_lamports: BET, ...(base === 'custom_squares' ? { custom_squares: [3, 7, 11, 17, 21] } : {}) },
      }),
    );
    // Every strategy's first replay comes before any is timed. It derives the history's
    // rankings the rule reads (kept for later runs), and it takes the engine's code to the
    // form it keeps: V8 recompiles the replay loop when a strategy takes a path no earlier
    // one took, and the code it settles on is not the first code it ran. A worker serving
    // every kind of strategy runs that settled code; timing the first strategies while it
    // settles measured the compiler (one strategy 22 ms a run in one compiled form, 28 in
    // the next).
    const firsts = dsls.map((dsl) => timed(() => engineRun(dsl, h)));
    if (era === 'parimutuel') firstHotMs = firsts[BASE_STRATEGIES.indexOf('hot')]!.ms;
    for (const [index, base] of BASE_STRATEGIES.entries()) {
      const dsl = dsls[index]!;
      const bets = captureBets(dsl, h);
      const expected = firsts[index]!.value;
      // The bare loop's first run on these arrays, untimed too.
      if (bare(h, bets) !== expected) throw new Error(`${base} (${era}): engine and bare loop disagree on net PnL`);
      const engineMs: number[] = [];
      const ratios: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const engine = timed(() => engineRun(dsl, h));
        const plain = timed(() => bare(h, bets));
        if (engine.value !== expected || plain.value !== expected) throw new Error(`${base} (${era}): engine and bare loop disagree on net PnL`);
        engineMs.push(engine.ms);
        // Each pair runs back to back, so a pair's ratio does not see the machine's drift.
        ratios.push(engine.ms / plain.ms);
      }
      const rate = Math.round(ROUNDS / (percentile(engineMs, 50) / 1000));
      const ratio = Math.round(percentile(ratios, 50) * 100) / 100;
      figures.push(
        { key: `${prefix}.${base}.roundsPerSecond`, label: `backtest engine replay, ${base}, flat, 1M rounds${suffix}`, value: rate, unit: 'rounds/s', target: `>= ${TARGET_RATE}`, met: rate >= TARGET_RATE },
        { key: `${prefix}.${base}.vsBareLoop`, label: `backtest engine ÷ bare payout loop, ${base}${suffix}`, value: ratio, unit: 'x time', target: `<= ${TARGET_RATIO}`, met: ratio <= TARGET_RATIO },
      );
    }
    if (era === 'parimutuel') {
      figures.push({
        key: 'strategy.hot.firstReplayMs',
        label: 'first hot replay on the history, deriving its ranking (1M rounds)',
        value: Math.round(firstHotMs),
        unit: 'ms',
      });
      const corners = normalizeDsl({ base_strategy: 'corners', params: { bet_size_lamports: BET } });
      const assembly: number[] = [];
      for (let run = 0; run < 3; run++) {
        const runner = createRunner(corners, h, { record: true });
        runner.runTo(h.length);
        assembly.push(timed(() => runner.result().perRoundPnlLamports.length).ms);
        runner.release();
      }
      figures.push({ key: 'strategy.resultAssemblyMs', label: 'backtest result assembly (arrays, equity curve), 1M rounds', value: percentile(assembly, 50), unit: 'ms' });
    }
  }
  const small = await history(ANALYTICS_ROUNDS);
  const dsl = normalizeDsl({ base_strategy: 'cold', params: { bet_size_lamports: BET } });
  analyze(small, dsl);
  const times: number[] = [];
  for (let run = 0; run < 3; run++) times.push(timed(() => analyze(small, dsl).asOfRoundId).ms);
  const analyticsMs = percentile(times, 50);
  figures.push({
    key: 'strategy.analytics100kMs',
    label: 'analytics (bootstrap, random outcomes, 4 sweeps), 100,000 rounds, uncached',
    value: analyticsMs,
    unit: 'ms',
    target: `< ${TARGET_ANALYTICS_MS}`,
    met: analyticsMs < TARGET_ANALYTICS_MS,
  });
  return figures;
}
