/** Ids a reader passed over because they stayed missing (inclusive range). */
export interface SkippedIds {
  readonly from: number;
  readonly to: number;
}

/** What the indexer says of a run's missing ids (see HistoryStore). */
export interface FillState {
  /** The lowest id the indexer rebuilds history down to; null: it rebuilds none. */
  readonly floor: number | null;
  /** The lowest id of the gap the indexer is still filling; null: none of them. */
  readonly firstPending: number | null;
}

/**
 * For readers that must take stored rounds in id order without a hole (the event log,
 * forward testing). A missing id the indexer is still filling from its transactions
 * holds the rounds after it back for as long as it is filling; one it will never store
 * (unrecoverable) is passed over at once. Without a history floor (the indexer rebuilds
 * none), a missing id holds the rounds back until it has been missing for `waitMs`, then
 * it is passed over and reported. Pure: the caller supplies the time and the fill state.
 */
export class ContiguousRounds {
  private gap: { id: number; since: number } | null = null;

  constructor(
    private readonly waitMs: number,
    private readonly onSkip: (skipped: SkippedIds) => void,
  ) {}

  /**
   * The ids missing before `rounds` (ascending, as read after `last`) continue the run,
   * or null when none are: what the caller asks the fill state about. With no round taken
   * yet, the run starts at the history floor (or the first stored round, if lower).
   */
  gapOf<T extends { readonly id: number }>(last: number | null, rounds: readonly T[], floor: number | null): SkippedIds | null {
    if (rounds.length === 0) return null;
    const expected = this.expected(last, rounds, floor);
    return rounds[0]!.id === expected ? null : { from: expected, to: rounds[0]!.id - 1 };
  }

  /**
   * The leading run of `rounds` (ascending ids, as read after `last`) with consecutive
   * ids after `last` (null: none taken yet: the run starts at the history floor or the
   * first stored round).
   */
  take<T extends { readonly id: number }>(last: number | null, rounds: readonly T[], nowMs: number, fill: FillState = { floor: null, firstPending: null }): T[] {
    if (rounds.length === 0) return [];
    let expected = this.expected(last, rounds, fill.floor);
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
    if (fill.firstPending !== null) {
      // Still being filled: wait for it, however long that takes.
      this.gap = null;
      return [];
    }
    const unrecoverable = fill.floor !== null && expected >= fill.floor;
    if (!unrecoverable) {
      if (this.gap?.id !== expected) this.gap = { id: expected, since: nowMs };
      if (nowMs - this.gap.since < this.waitMs) return [];
    }
    this.onSkip({ from: expected, to: rounds[0]!.id - 1 });
    this.gap = null;
    return this.take(rounds[0]!.id - 1, rounds, nowMs, fill);
  }

  private expected<T extends { readonly id: number }>(last: number | null, rounds: readonly T[], floor: number | null): number {
    if (last !== null) return last + 1;
    return floor === null ? rounds[0]!.id : Math.min(floor, rounds[0]!.id);
  }
}

/** Where the fill state is read (HistoryStore). */
export interface FillLookup {
  floor(): Promise<number | null>;
  firstPending(fromId: number, toId: number): Promise<number | null>;
}

/** `gaps.take` with the fill state read from `fill` (only when there is a gap to ask about); without `fill`, the timed wait. */
async function takeContiguous<T extends { readonly id: number }>(gaps: ContiguousRounds, last: number | null, rounds: readonly T[], nowMs: number, fill?: FillLookup): Promise<T[]> {
  if (fill === undefined) return gaps.take(last, rounds, nowMs);
  const floor = await fill.floor();
  const gap = gaps.gapOf(last, rounds, floor);
  const firstPending = gap === null ? null : await fill.firstPending(gap.from, gap.to);
  return gaps.take(last, rounds, nowMs, { floor, firstPending });
}

export interface ContiguousReaderOptions {
  /** How long a missing id nobody is filling holds the rounds after it back before it is passed over. */
  readonly waitMs: number;
  /** Told of the ids passed over. */
  readonly onSkip: (skipped: SkippedIds) => void;
  /** The indexer's history fill (HistoryStore): an id it is still filling holds the rounds after it back until stored. */
  readonly fill?: FillLookup;
  readonly now?: () => number;
}

/**
 * Stored rounds read in id order without a hole (see ContiguousRounds): each read starts
 * after the last id its caller took and is cut where a missing id holds the rest back.
 */
export class ContiguousReader<T extends { readonly id: number }> {
  private readonly gaps: ContiguousRounds;
  private readonly now: () => number;

  constructor(
    private readonly read: (fromId: number, limit: number) => Promise<T[]>,
    private readonly options: ContiguousReaderOptions,
  ) {
    this.gaps = new ContiguousRounds(options.waitMs, options.onSkip);
    this.now = options.now ?? Date.now;
  }

  /** The leading run of stored rounds after `last` (null: none taken yet), at most `limit`. */
  async after(last: number | null, limit: number): Promise<T[]> {
    const fetched = await this.read(last === null ? 0 : last + 1, limit);
    return takeContiguous(this.gaps, last, fetched, this.now(), this.options.fill);
  }
}
