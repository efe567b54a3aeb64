/** ORE summed in a double past this moves to the BigInt carry, so the total stays exact. */
export const ORE_FLUSH = 2 ** 52;

/** 100 x net / stake: the return on what was staked, 0 when nothing was. */
export function roiPercent(net: number, stake: number): number {
  return stake > 0 ? (100 * net) / stake : 0;
}

/**
 * The running figures of a series of bet-rounds (SPEC 7.8), kept by the same rules by a
 * backtest (RunStats) and a forward test (lab-forward's figures, one record across
 * sessions): counts, stake, net PnL with its lowest point, its peak and the largest
 * drawdown from the peak (which starts at 0), the losing streak, and the ORE earned with
 * its value. A bet-round with PnL < 0 extends the losing streak; any other ends it. All in
 * lamports.
 */
export class BetAccount {
  roundsBet = 0;
  roundsWon = 0;
  squaresBet = 0;
  totalStake = 0;
  net = 0;
  minNet = 0;
  peak = 0;
  maxDrawdown = 0;
  /** Current losing streak (bet-rounds). */
  streak = 0;
  maxStreak = 0;
  /**
   * ORE earned on `returns` rounds (base units): `ore` below ORE_FLUSH plus `oreCarry`, so
   * the sum stays exact past 2^53 (see `oreEarned`).
   */
  ore = 0;
  oreCarry = 0n;
  /** That ORE valued at each round's production cost (lamports); net PnL includes it. */
  oreValue = 0;

  /**
   * Adds a settled bet-round: `squares` bet, `stake` staked in all, `pnl` its net (the
   * ORE's value included; whether it won is the caller's to count). Returns the length of
   * the losing streak it ended, 0 when it ended none.
   */
  addBet(squares: number, stake: number, pnl: number): number {
    this.roundsBet++;
    this.squaresBet += squares;
    this.totalStake += stake;
    const net = this.net + pnl;
    this.net = net;
    if (net < this.minNet) this.minNet = net;
    if (net > this.peak) this.peak = net;
    else if (this.peak - net > this.maxDrawdown) this.maxDrawdown = this.peak - net;
    if (pnl < 0) {
      this.streak++;
      if (this.streak > this.maxStreak) this.maxStreak = this.streak;
      return 0;
    }
    const ended = this.streak;
    this.streak = 0;
    return ended;
  }

  /** Adds a round's ORE (base units) and its value (lamports). */
  addOre(ore: number, value: number): void {
    this.ore += ore;
    this.oreValue += value;
    if (this.ore > ORE_FLUSH) {
      this.carryOre(this.ore);
      this.ore = 0;
    }
  }

  /** Adds a running sum of ORE (taken out of `ore` by the caller) to the exact carry. */
  carryOre(ore: number): void {
    this.oreCarry += BigInt(ore);
  }

  /** Total ORE earned, base units, exact (a decimal string: it may pass 2^53). */
  get oreEarned(): string {
    return this.oreCarry === 0n ? String(this.ore) : (this.oreCarry + BigInt(this.ore)).toString();
  }

  /**
   * The SOL-only part of net PnL: what came back in SOL (stake back, and the parimutuel
   * winnings) less stakes and fees, i.e. net PnL without the ORE's value.
   */
  get solReturnedNet(): number {
    return this.net - this.oreValue;
  }

  get roiPercent(): number {
    return roiPercent(this.net, this.totalStake);
  }
}
