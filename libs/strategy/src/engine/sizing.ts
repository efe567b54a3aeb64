import type { DslParams, SizingMode } from '../dsl/types';

export const FLAT = 0;
const MARTINGALE = 1;
const REVERSE_MARTINGALE = 2;
const FIBONACCI = 3;
const DALEMBERT = 4;
export const KELLY = 5;

const MODE_CODES: Record<SizingMode, number> = {
  flat: FLAT,
  martingale: MARTINGALE,
  reverse_martingale: REVERSE_MARTINGALE,
  fibonacci: FIBONACCI,
  dalembert: DALEMBERT,
  kelly: KELLY,
};

/** F(100) * 1 lamport already exceeds any cap (1e8), so larger indexes need no table entry. */
const FIB_TABLE_SIZE = 101;
const FIB = new Float64Array(FIB_TABLE_SIZE);
FIB[0] = 1;
FIB[1] = 1;
for (let i = 2; i < FIB_TABLE_SIZE; i++) FIB[i] = FIB[i - 1]! + FIB[i - 2]!;

/**
 * Progression state of the non-Kelly sizing modes (SPEC 7.4), advanced after each
 * bet-round: a loss is net PnL < 0, anything else a win.
 */
export class Progression {
  readonly mode: number;
  /** reverse_martingale's w: consecutive wins, back to 0 after a loss or at the threshold. */
  wins = 0;
  /** fibonacci's i. */
  fib = 0;
  /** dalembert's u. */
  units = 0;
  private readonly bet: number;
  private readonly multiplier: number;
  private readonly threshold: number;
  private readonly step: number;

  constructor(params: DslParams) {
    this.mode = MODE_CODES[params.sizing_mode];
    this.bet = params.bet_size_lamports;
    this.multiplier = params.martingale_multiplier;
    this.threshold = params.loss_streak_threshold;
    this.step = params.dalembert_step_lamports;
  }

  /** The stake per square before flooring and the cap, after `losses` (n) losing bet-rounds in a row; not for kelly. */
  rawStake(losses: number): number {
    switch (this.mode) {
      case FLAT:
        return this.bet;
      case MARTINGALE:
        return this.bet * this.multiplier ** Math.max(0, losses - this.threshold + 1);
      case REVERSE_MARTINGALE:
        return this.bet * this.multiplier ** this.wins;
      case FIBONACCI:
        return this.bet * FIB[Math.min(this.fib, FIB_TABLE_SIZE - 1)]!;
      default:
        return this.bet + this.units * this.step;
    }
  }

  onLoss(): void {
    this.wins = 0;
    this.fib++;
    this.units++;
  }

  onWin(): void {
    this.wins++;
    if (this.wins >= this.threshold) this.wins = 0;
    this.fib = Math.max(0, this.fib - 2);
    this.units = Math.max(0, this.units - 1);
  }
}
