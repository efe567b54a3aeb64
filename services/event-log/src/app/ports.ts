/**
 * The ports event-log's app needs, declared here and implemented by adapters/ and the
 * store libraries' readers (main.ts wires them).
 */
import type { StoredFact } from '@gridlab/billing-store';
import type { LogEvent } from '@gridlab/contracts';
import type { Checkpoint, CheckpointChange, LiveEvent, NewEvent, Progress } from '@gridlab/events-store';
import type { RoundOutcome } from '@gridlab/rounds-store';

/**
 * Settled rounds' outcomes in id order without a hole: a missing id holds the rounds
 * after it back until it is stored or given up (the indexer's table).
 */
export interface RoundOutcomes {
  /** The leading run of stored rounds after `last` (null: none taken yet), at most `limit`. */
  after(last: number | null, limit: number): Promise<RoundOutcome[]>;
  /** How many rounds are stored with an id at or below `id` (cheap near the newest). */
  countUpTo(id: number): Promise<number>;
  /** The same for each of `ids` (ascending), in one pass. */
  countsUpTo(ids: readonly number[]): Promise<number[]>;
}

/** Where billing's facts are read, in commit order. */
export interface FactsSource {
  after(seq: number, limit: number): Promise<StoredFact[]>;
}

/** The event log: the writer's committed position, and its appends. */
export interface EventLog {
  progress(): Promise<Progress>;
  /**
   * Appends the events whose dedup key is new, in order, and records `progress`, in one
   * transaction; resolves with the appended events and their ids.
   */
  append(events: readonly NewEvent[], progress: Partial<Progress>): Promise<LogEvent[]>;
  /**
   * `append` for a batch of rounds: the corrections and events in order (a `withdrawn`
   * marks the event it names before the rest are appended), the progress and the
   * checkpoint change, in one transaction.
   */
  commitRounds(events: readonly NewEvent[], progress: Partial<Progress>, checkpoints: CheckpointChange): Promise<LogEvent[]>;
  /** Live round events of a round in (after, upTo] or with one of `keys`, ascending by id. */
  liveRoundEvents(range: { after: number | null; upTo: number }, keys: readonly string[]): Promise<LiveEvent[]>;
  /** Every checkpoint's round id and count, ascending. */
  checkpoints(): Promise<Omit<Checkpoint, 'state'>[]>;
  /** The deriver state saved at `roundId` (undefined: none). */
  checkpointState(roundId: number): Promise<unknown>;
}

/** Observers: appended events (publish after commit) and progress (metrics). */
export interface WriterEvents {
  appended(events: readonly LogEvent[]): void;
  progress(roundId: number, factSeq: number): void;
}
