import type { BoardAccount, RoundAccount, TreasuryAccount } from '@gridlab/chain';

/** What one account update asks the indexer to do. */
export interface TrackerEffects {
  /** The board moved to a new round: announce it. */
  readonly opened: { readonly roundId: number; readonly previousRoundId: number | null } | null;
  /** Rounds the board has moved past: fetch, store and publish each (ascending). */
  readonly settle: readonly number[];
  /** The live state changed: publish a new snapshot. */
  readonly snapshotChanged: boolean;
}

const NONE: TrackerEffects = { opened: null, settle: [], snapshotChanged: false };

/** Settled rounds whose motherlode pool and next board are remembered until they are stored. */
const POOLS_KEPT = 64;

/**
 * Follows the board and the current round from account updates (WebSocket or poll,
 * in any mix and with repeats). A round is settled once the board has moved past it:
 * the reset writes the slot hash and the totals in the same transaction that moves
 * the board. When the board jumps several rounds at once, every skipped one is
 * settled too. Pure: no I/O, no clock.
 *
 * It also follows the motherlode pool each round plays for. The pool changes only in a
 * reset, in the transaction that moves the board, so the Treasury's update and the
 * board's come at the same slot in either order, and a poll may read the Treasury later
 * than it last saw the board. A Treasury read belongs to the board's current round when
 * it was made at or after the slot the board was first seen on that round, and either no
 * later than a read of the board still showing it or before the round's end slot (no
 * reset comes earlier). A round the board skipped, or one not watched live, has none.
 */
export class RoundTracker {
  private boardState: BoardAccount | null = null;
  private roundState: RoundAccount | null = null;
  private slotState = 0;
  private treasuryState: TreasuryAccount | null = null;
  private treasurySlot = 0;
  /** The slots the board was first and last seen on its current round. */
  private roundSeenAt = 0;
  private roundSeenUntil = 0;
  /** The pool the board's current round plays for, once read while it was live. */
  private currentPool: number | null = null;
  private readonly settledPools = new Map<number, number>();
  /** The board that first showed each settled round as past (its cost word is the round's). */
  private readonly boardsPast = new Map<number, BoardAccount>();

  get board(): BoardAccount | null {
    return this.boardState;
  }

  get round(): RoundAccount | null {
    return this.roundState;
  }

  get slot(): number {
    return this.slotState;
  }

  /** The Treasury as last seen (its motherlode pool), or null before it is read. */
  get treasury(): TreasuryAccount | null {
    return this.treasuryState;
  }

  /** A Treasury update: a new snapshot when the motherlode pool changed. */
  onTreasury(treasury: TreasuryAccount, slot: number): TrackerEffects {
    this.slotState = Math.max(this.slotState, slot);
    if (slot < this.treasurySlot) return NONE;
    this.treasurySlot = slot;
    const board = this.boardState;
    if (board !== null && slot >= this.roundSeenAt && (slot <= this.roundSeenUntil || (board.endSlot !== null && slot < board.endSlot))) {
      this.currentPool = treasury.motherlode;
    }
    if (this.treasuryState?.motherlode === treasury.motherlode) return NONE;
    this.treasuryState = treasury;
    return { ...NONE, snapshotChanged: true };
  }

  /**
   * The motherlode pool a settled round played for, as read while it was live; null when
   * it was not (remembered for the last rounds settled).
   */
  poolOf(roundId: number): number | null {
    return this.settledPools.get(roundId) ?? null;
  }

  /**
   * The board as first seen after it moved past a settled round (the production cost at
   * that settlement, which a board read later, after further resets, no longer holds);
   * null when not seen (remembered for the last rounds settled).
   */
  boardPast(roundId: number): BoardAccount | null {
    return this.boardsPast.get(roundId) ?? null;
  }

  /** A board update observed at `slot`. */
  onBoard(board: BoardAccount, slot: number): TrackerEffects {
    const previous = this.boardState;
    if (slot < this.slotState && previous !== null && board.roundId < previous.roundId) return NONE;
    this.slotState = Math.max(this.slotState, slot);
    if (previous !== null && board.roundId === previous.roundId) this.roundSeenUntil = Math.max(this.roundSeenUntil, slot);
    if (previous !== null && sameBoard(previous, board)) return NONE;
    this.boardState = board;
    if (previous === null) {
      this.onNewRound(null, slot);
      // First sight: the round before the current one is settled (if any).
      return { opened: null, settle: board.roundId > 0 ? [board.roundId - 1] : [], snapshotChanged: true };
    }
    if (board.roundId <= previous.roundId) return { ...NONE, snapshotChanged: true };
    this.onNewRound(previous.roundId, slot);
    const settle: number[] = [];
    for (let id = previous.roundId; id < board.roundId; id++) {
      settle.push(id);
      remember(this.boardsPast, id, board);
    }
    return { opened: { roundId: board.roundId, previousRoundId: board.roundId - 1 }, settle, snapshotChanged: true };
  }

  /**
   * The board moved on at `slot`: the round it left keeps the pool read while it was live;
   * the new one starts from the last Treasury read, which a read of this reset's slot or
   * later replaces (the pool is unchanged by a reset that paid no ORE, and then no update comes).
   */
  private onNewRound(left: number | null, slot: number): void {
    if (left !== null && this.currentPool !== null) remember(this.settledPools, left, this.currentPool);
    this.roundSeenAt = slot;
    this.roundSeenUntil = slot;
    this.currentPool = this.treasuryState === null ? null : this.treasuryState.motherlode;
  }

  /** A round account update observed at `slot`; only the board's current round matters here. */
  onRound(round: RoundAccount, slot: number): TrackerEffects {
    this.slotState = Math.max(this.slotState, slot);
    const current = this.boardState?.roundId;
    if (current !== undefined && round.id !== current) return NONE;
    if (this.roundState !== null && this.roundState.id === round.id && sameRound(this.roundState, round)) return NONE;
    this.roundState = round;
    return { ...NONE, snapshotChanged: true };
  }
}

/** Sets a settled round's entry, forgetting the oldest beyond POOLS_KEPT. */
function remember<T>(map: Map<number, T>, roundId: number, value: T): void {
  map.set(roundId, value);
  if (map.size > POOLS_KEPT) map.delete(map.keys().next().value!);
}

function sameBoard(a: BoardAccount, b: BoardAccount): boolean {
  return a.roundId === b.roundId && a.startSlot === b.startSlot && a.endSlot === b.endSlot;
}

function sameRound(a: RoundAccount, b: RoundAccount): boolean {
  return a.totalDeployed === b.totalDeployed && a.totalMiners === b.totalMiners && a.deployed.every((d, i) => d === b.deployed[i]);
}
