import type { MinerBucket, MinerPerformance, MinerRound, MinerSort, MinerSummary, MinerWindowName, RoundMiners, TopMiners } from '@gridlab/contracts';

/** A page of a wallet's ledger, newest first. */
export interface MinerRoundPage {
  readonly rounds: readonly MinerRound[];
  /** The `before` of the next page; null on the last. */
  readonly nextBefore: number | null;
}

/** What the gateway reads of the miner tables. */
export interface MinerLedgerReads {
  /** The summary's windows at `now` (claimable is the caller's, from the chain); null when the wallet has no indexed round. */
  summary(address: string, now: Date): Promise<Omit<MinerSummary, 'claimable'> | null>;
  /** Up to `limit` rows below round `before` (all when absent), newest first; null when the wallet has no indexed round. */
  rounds(address: string, options: { readonly before?: number; readonly limit: number }): Promise<MinerRoundPage | null>;
  /**
   * Every row below `before`, newest first, in batches as they are read (constant memory
   * whatever the ledger's size); null when the wallet has no indexed round.
   */
  exportRounds(address: string, before?: number): Promise<AsyncIterable<readonly MinerRound[]> | null>;
  /** Hourly (the last 48 hours) or daily (all time) points, oldest first; null when the wallet has no indexed round. */
  performance(address: string, bucket: MinerBucket): Promise<MinerPerformance | null>;
  top(sort: MinerSort, window: MinerWindowName, limit: number, now: Date): Promise<TopMiners>;
  /** Null when the round's miners are not stored (not indexed, or not yet read). */
  roundMiners(roundId: number): Promise<RoundMiners | null>;
}
