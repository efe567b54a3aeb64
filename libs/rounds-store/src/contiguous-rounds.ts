/** Ids a reader passed over because they stayed missing (inclusive range). */
export interface SkippedIds {
  readonly from: number;
  readonly to: number;
}

/**
 * For readers that must take stored rounds in id order without a hole (the event log,
 * forward testing): a missing id holds the rounds after it back, since the indexer may
 * still be filling it, until it has been missing for `waitMs`; then it is passed over and
 * reported. Pure: the caller supplies the time.
 */
export class ContiguousRounds {
  private gap: { id: number; since: number } | null = null;

  constructor(
    private readonly waitMs: number,
    private readonly onSkip: (skipped: SkippedIds) => void,
  ) {}

  /**
   * The leading run of `rounds` (ascending ids, as read after `last`) with consecutive
   * ids after `last` (null: none taken yet, the first stored round starts the run).
   */
  take<T extends { readonly id: number }>(last: number | null, rounds: readonly T[], nowMs: number): T[] {
    if (rounds.length === 0) return [];
    let expected = last === null ? rounds[0]!.id : last + 1;
    let n = 0;
    for (const round of rounds) {
      if (round.id !== expected) break;
      n++;
      expected++;
    }
    if (n > 0) {
      this.gap = null;
      return rounds.slice(0, n);
    }
    if (this.gap?.id !== expected) this.gap = { id: expected, since: nowMs };
    if (nowMs - this.gap.since < this.waitMs) return [];
    this.onSkip({ from: expected, to: rounds[0]!.id - 1 });
    this.gap = null;
    return this.take(rounds[0]!.id - 1, rounds, nowMs);
  }
}
