/**
 * The ports event-log's app needs, declared here and implemented by adapters/ and the
 * store libraries' readers (main.ts wires them).
 */
import type { StoredFact } from '@gridlab/billing-store';
import type { LogEvent } from '@gridlab/contracts';
import type { NewEvent, Progress } from '@gridlab/events-store';
import type { RoundOutcome } from '@gridlab/rounds-store';

/**
 * Settled rounds' outcomes in id order without a hole: a missing id holds the rounds
 * after it back until it is stored or given up (the indexer's table).
 */
export interface RoundOutcomes {
  /** The leading run of stored rounds after `last` (null: none taken yet), at most `limit`. */
  after(last: number | null, limit: number): Promise<RoundOutcome[]>;
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
}

/** Observers: appended events (publish after commit) and progress (metrics). */
export interface WriterEvents {
  appended(events: readonly LogEvent[]): void;
  progress(roundId: number, factSeq: number): void;
}
