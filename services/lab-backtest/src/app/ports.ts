/**
 * The ports lab-backtest's app needs, declared here and implemented by adapters/
 * (main.ts wires them).
 */
import type { ComputeJob } from './compute';
import type { HistoryBuffers, SharedHistory } from '../domain/shared-history';

/** Where stored rounds come from (the indexer's table, the source of truth). */
export interface RoundSource {
  /** How many rounds are stored and the newest id. */
  totals(): Promise<{ count: number; lastId: number | null }>;
  /** Appends every stored round with afterId < id <= upToId to `into`, ascending; returns how many. */
  appendAfter(into: SharedHistory, afterId: number | null, upToId: number): Promise<number>;
}

/** What the rest of the service hears about the history. */
export interface HistoryListener {
  /** New column buffers (grown, or a rebuilt history): readers must switch to them. */
  buffers(buffers: HistoryBuffers): void;
  /** The history now holds `length` rounds ending at `lastId`. */
  extended(length: number, lastId: number | null): void;
}

/** Who waits for a job and until when (from the request's headers). */
export interface JobCaller {
  /** Queues are fair across clients (the subscriber id). */
  readonly client?: string;
  /** Epoch ms after which nobody waits for the result. */
  readonly deadlineMs?: number;
}

/** Runs jobs off the serving thread; resolves with the bytes of computeReply. */
export interface ComputePort {
  run(job: ComputeJob, caller?: JobCaller): Promise<Uint8Array>;
  /** Jobs of one call, side by side where workers are free (one call against the caller's share of the workers). */
  runAll(jobs: readonly ComputeJob[], caller?: JobCaller): Promise<Uint8Array[]>;
}

/** Analytics reply bytes by key; a cache that is down behaves as empty. */
export interface AnalyticsCachePort {
  get(key: string): Promise<Uint8Array | null>;
  set(key: string, bytes: Uint8Array): Promise<void>;
}
