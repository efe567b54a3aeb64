/**
 * Test support: a deliberately naive second implementation of SPEC 7.2-7.7, written
 * straight from the text. For every round it rescans all earlier rounds (no incremental
 * state), so the engine's incremental structures can be checked against it.
 */
import type { Dsl } from '../dsl/types';
import type { RoundInput } from '../history/history';

interface ReferenceRound {
  readonly id: number;
  readonly squares: number[];
  readonly stakes: number[];
  readonly pnl: number;
  readonly capHit: boolean;
  /** ORE earned (base units) and its value (lamports, inside pnl). */
  readonly ore: bigint;
  readonly oreValue: number;
}

export interface ReferenceRun {
  readonly rounds: ReferenceRound[];
  readonly net: number;
  /** Total ORE earned and the SOL-only part of net (net less the ORE's value). */
  readonly ore: bigint;
  readonly solReturnedNet: number;
  readonly exit: string | null;
  readonly exitRoundId: number | null;
}

const FIXED: Record<string, number[]> = {
  corners: [0, 4, 20, 24],
  edges: [1, 2, 3, 5, 9, 10, 14, 15, 19, 21, 22, 23],
  center_block: [6, 7, 8, 11, 12, 13, 16, 17, 18],
  diagonal_main: [0, 6, 12, 18, 24],
  diagonal_anti: [4, 8, 12, 16, 20],
  checkerboard: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24],
  all_25: Array.from({ length: 25 }, (_, i) => i),
};

const range25 = (): number[] => Array.from({ length: 25 }, (_, i) => i);
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

function drought(prior: readonly RoundInput[], s: number): number {
  for (let j = prior.length - 1; j >= 0; j--) if (prior[j]!.winningSquare === s) return prior.length - 1 - j;
  return prior.length;
}

function lastWinPos(prior: readonly RoundInput[], s: number): number {
  for (let j = prior.length - 1; j >= 0; j--) if (prior[j]!.winningSquare === s) return j;
  return -1;
}

function wins(prior: readonly RoundInput[], window: number, s: number): number {
  return prior.slice(Math.max(0, prior.length - window)).filter((r) => r.winningSquare === s).length;
}

function median(xs: number[]): number {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}

function chooseSquares(dsl: Dsl, prior: readonly RoundInput[]): number[] {
  const p = dsl.params;
  const k = p.num_squares;
  const base = dsl.base_strategy;
  if (base in FIXED) return FIXED[base]!;
  if (base === 'custom_squares') return [...new Set(p.custom_squares)];
  if (base === 'row') return [0, 1, 2, 3, 4].map((c) => 5 * p.row_index + c);
  if (base === 'column') return [0, 1, 2, 3, 4].map((r) => 5 * r + p.column_index);
  if (prior.length === 0) return [];
  const prev = prior[prior.length - 1]!;
  const byDrought = range25().sort((a, b) => drought(prior, b) - drought(prior, a) || a - b);
  switch (base) {
    case 'cold':
      return byDrought.slice(0, k);
    case 'drought':
      return byDrought.filter((s) => drought(prior, s) >= p.drought_threshold).slice(0, k);
    case 'hot':
      return range25()
        .sort((a, b) => wins(prior, 50, b) - wins(prior, 50, a) || lastWinPos(prior, b) - lastWinPos(prior, a) || a - b)
        .slice(0, k);
    case 'top_hit_rate':
      return range25()
        .sort((a, b) => wins(prior, p.hit_rate_lookback, b) - wins(prior, p.hit_rate_lookback, a) || a - b)
        .slice(0, k);
    case 'bottom_hit_rate':
      return range25()
        .sort((a, b) => wins(prior, p.hit_rate_lookback, a) - wins(prior, p.hit_rate_lookback, b) || a - b)
        .slice(0, k);
    case 'recent_winners': {
      const out: number[] = [];
      for (let j = prior.length - 1; j >= 0 && out.length < k; j--) {
        const w = prior[j]!.winningSquare!;
        if (!out.includes(w)) out.push(w);
      }
      return out;
    }
    case 'spread':
      return range25().sort((a, b) => prev.deployed[a]! - prev.deployed[b]! || a - b).slice(0, k);
    case 'anti_spread':
      return range25().sort((a, b) => prev.deployed[b]! - prev.deployed[a]! || a - b).slice(0, k);
    default:
      return range25().sort((a, b) => prev.count[a]! - prev.count[b]! || a - b).slice(0, k);
  }
}

function isBigRound(prior: readonly RoundInput[], j: number): boolean {
  const before = prior.slice(Math.max(0, j - 1000), j).map((r) => r.totalDeployed);
  return before.length >= 100 && prior[j]!.totalDeployed >= 2 * median(before);
}

/** The value of a filter metric, NaN when unavailable. */
function referenceMetric(metric: string, dsl: Dsl, prior: readonly RoundInput[], squares: number[], lossStreak: number): number {
  if (metric === 'consecutive_losses') return lossStreak;
  if (prior.length === 0) return Number.NaN;
  const prev = prior[prior.length - 1]!;
  const L = dsl.params.hit_rate_lookback;
  const since = (pred: (j: number) => boolean): number => {
    for (let j = prior.length - 1; j >= 0; j--) if (pred(j)) return prior.length - 1 - j;
    return Number.NaN;
  };
  switch (metric) {
    case 'rounds_since_last_big':
      return since((j) => {
        const r = prior[j]!;
        const dw = r.deployed[r.winningSquare!]!;
        return dw > 0 && r.totalWinnings / dw >= 24;
      });
    case 'current_drought_min':
      return Math.min(...squares.map((s) => drought(prior, s)));
    case 'current_drought_max':
      return Math.max(...squares.map((s) => drought(prior, s)));
    case 'total_deployed_pctile': {
      const window = prior.slice(Math.max(0, prior.length - L));
      return (100 * window.filter((r) => r.totalDeployed <= prev.totalDeployed).length) / window.length;
    }
    case 'total_miners':
      return prev.totalMiners ?? sum(Array.from(prev.count));
    case 'rounds_since_big_round':
      return since((j) => isBigRound(prior, j));
    default: {
      const window = prior.slice(Math.max(0, prior.length - L));
      const n = window.length;
      const e = n / 25;
      let x = 0;
      for (let s = 0; s < 25; s++) x += (window.filter((r) => r.winningSquare === s).length - e) ** 2 / e;
      let term = 1;
      let total = 1;
      for (let i = 1; i <= 11; i++) {
        term = (term * (x / 2)) / i;
        total += term;
      }
      return Math.exp(-x / 2) * total;
    }
  }
}

function passes(op: string, a: number, b: number): boolean {
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : op === '>=' ? a >= b : a === b;
}

/** reverse_bits of the u64 rng of a slot hash (hex), computed bit by bit. */
function referenceReversedRng(slotHash: string): bigint {
  let rng = 0n;
  for (let w = 0; w < 4; w++) {
    let word = 0n;
    for (let b = 7; b >= 0; b--) word = word * 256n + BigInt(parseInt(slotHash.slice(16 * w + 2 * b, 16 * w + 2 * b + 2), 16));
    rng ^= word;
  }
  const bits = rng.toString(2).padStart(64, '0');
  return BigInt(`0b${bits.split('').reverse().join('')}`);
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/**
 * SPEC 7.7 `returns`, plainly in BigInt: SOL back per square and the ORE prize of our
 * stakes on one round. A square's SOL back is never negative (a 1-lamport square).
 */
function referenceReturns(round: RoundInput, squares: readonly number[], stakes: readonly number[]): { back: bigint; ore: bigint; oreValue: bigint } {
  const win = round.winningSquare!;
  let back = 0n;
  let sw = 0n;
  for (let k = 0; k < squares.length; k++) {
    const j = squares[k]!;
    const S = BigInt(stakes[k]!);
    if (S === 0n) continue;
    if (j === win) sw = S;
    const t = BigInt(round.deployed[j]!) + S;
    const admin = max(1n, t / 100n);
    let kept = t - admin;
    if (j !== win) kept -= max(1n, (t - admin) / 10n);
    back += (S * max(0n, kept)) / t;
  }
  let ore = 0n;
  if (sw > 0n) {
    const dw = BigInt(round.deployed[win]!);
    const n = dw + sw;
    const R = BigInt(round.oreReward ?? 0);
    if (round.split === true) ore = (R * sw) / n;
    else if (R > 0n && referenceReversedRng(round.slotHash as string) % n >= dw) ore = R;
    ore += (BigInt(round.motherlode ?? 0) * sw) / n;
  }
  const oreValue = (ore * BigInt(round.productionCost ?? 0)) / 100_000_000_000n;
  return { back, ore, oreValue };
}

const FIB = [1, 1];
for (let i = 2; i < 200; i++) FIB.push(FIB[i - 1]! + FIB[i - 2]!);

/** Replays rounds[from..] (all earlier rounds are lookback) exactly as the SPEC reads. */
export function referenceRun(dsl: Dsl, all: readonly RoundInput[], from = 0): ReferenceRun {
  const p = dsl.params;
  const out: ReferenceRound[] = [];
  let n = 0;
  let w = 0;
  let fib = 0;
  let u = 0;
  let net = 0;
  let oreTotal = 0n;
  let oreValueTotal = 0;
  let cooldown = 0;
  let exit: string | null = null;
  let exitRoundId: number | null = null;
  const settled = all.filter((r) => r.winningSquare !== null);
  for (let idx = from; idx < all.length; idx++) {
    const round = all[idx]!;
    if (round.winningSquare === null) continue;
    const prior = settled.filter((r) => r.id < round.id);
    const none = { id: round.id, squares: [], stakes: [], pnl: 0, capHit: false, ore: 0n, oreValue: 0 };
    if (exit !== null) {
      out.push(none);
      continue;
    }
    if (cooldown > 0) {
      cooldown--;
      out.push(none);
      continue;
    }
    const chosen = chooseSquares(dsl, prior);
    if (chosen.length === 0 || !dsl.filters.every((f) => passes(f.op, referenceMetric(f.metric, dsl, prior, chosen, n), f.value))) {
      out.push(none);
      continue;
    }
    let squares: number[] = [];
    let stakes: number[] = [];
    let capHit = false;
    const cap = (x: number): number => {
      const f = Math.floor(x);
      if (f > p.max_bet_per_square_lamports) {
        capHit = true;
        return p.max_bet_per_square_lamports;
      }
      return f;
    };
    if (p.sizing_mode === 'kelly') {
      const bankroll = p.kelly_bankroll_lamports + net;
      const prev = prior[prior.length - 1];
      if (bankroll > 0 && prev !== undefined) {
        const N = Math.min(prior.length, p.hit_rate_lookback);
        for (const s of chosen) {
          const D = prev.deployed[s]!;
          if (D === 0) continue;
          const o = (0.891 * (prev.totalDeployed - D)) / D - 0.01;
          if (o <= 0) continue;
          const pr = (wins(prior, p.hit_rate_lookback, s) + 1) / (N + 25);
          const f = (pr * o - (1 - pr)) / o;
          if (f <= 0) continue;
          const st = cap(p.kelly_fraction * f * bankroll);
          if (st > 0) {
            squares.push(s);
            stakes.push(st);
          }
        }
      }
    } else {
      const b = p.bet_size_lamports;
      const m = p.martingale_multiplier;
      const raw =
        p.sizing_mode === 'flat'
          ? b
          : p.sizing_mode === 'martingale'
            ? b * m ** Math.max(0, n - p.loss_streak_threshold + 1)
            : p.sizing_mode === 'reverse_martingale'
              ? b * m ** w
              : p.sizing_mode === 'fibonacci'
                ? b * FIB[Math.min(fib, 199)]!
                : b + u * p.dalembert_step_lamports;
      const st = cap(raw);
      squares = [...chosen];
      stakes = chosen.map(() => st);
    }
    if (squares.length === 0) {
      out.push(none);
      continue;
    }
    const win = round.winningSquare;
    let payout: number;
    let ore = 0n;
    let oreValue = 0;
    if (round.payoutRule === 'returns') {
      const r = referenceReturns(round, squares, stakes);
      payout = Number(r.back + r.oreValue);
      ore = r.ore;
      oreValue = Number(r.oreValue);
    } else {
      const at = squares.indexOf(win);
      const sw = at >= 0 ? stakes[at]! : 0;
      let L = 0;
      for (let j = 0; j < 25; j++) {
        if (j === win) continue;
        const k = squares.indexOf(j);
        L += round.deployed[j]! + (k >= 0 ? stakes[k]! : 0);
      }
      const dw = round.deployed[win]!;
      // SPEC 7.7, the program's integer arithmetic (reset.rs and checkpoint.rs at 3112ab7).
      const w_ = BigInt(L) - BigInt(L) / 100n;
      const tw = w_ - w_ / 10n;
      payout = sw > 0 ? sw - Math.max(1, Math.floor(sw / 100)) + Number((tw * BigInt(sw)) / BigInt(dw + sw)) : 0;
    }
    const pnl = payout - sum(stakes) - p.tx_fee_lamports;
    net += pnl;
    oreTotal += ore;
    oreValueTotal += oreValue;
    out.push({ id: round.id, squares, stakes, pnl, capHit, ore, oreValue });
    if (pnl < 0) {
      n++;
      w = 0;
      fib++;
      u++;
      cooldown = p.cooldown_after_loss_rounds;
    } else {
      n = 0;
      w++;
      if (w >= p.loss_streak_threshold) w = 0;
      fib = Math.max(0, fib - 2);
      u = Math.max(0, u - 1);
    }
    if (p.stop_loss_streak !== undefined && n >= p.stop_loss_streak) exit = 'stop_loss_streak';
    else if (p.take_profit_lamports > 0 && net >= p.take_profit_lamports) exit = 'take_profit';
    else if (p.session_stop_loss_lamports > 0 && net <= -p.session_stop_loss_lamports) exit = 'session_stop_loss';
    if (exit !== null) exitRoundId = round.id;
  }
  return { rounds: out, net, ore: oreTotal, solReturnedNet: net - oreValueTotal, exit, exitRoundId };
}
