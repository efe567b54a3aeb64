/**
 * The ports the indexer's app needs, declared here and implemented by adapters/
 * (src/indexer.ts wires them).
 */
import type { LiveSnapshot, Round, RoundOpened } from '@gridlab/contracts';

/** Where the leader sends what it saw: live snapshots, settled and opened rounds (NATS in production). */
export interface RoundSink {
  /** Fire and forget: the latest snapshot supersedes any lost one. */
  snapshot(snapshot: LiveSnapshot): void;
  settled(round: Round): Promise<void>;
  opened(opened: RoundOpened): Promise<void>;
}

/** An account's bytes as seen at a slot, from either path of the feed. */
export type AccountUpdate = (pubkey: string, data: Buffer, slot: number, source: 'ws' | 'poll') => void;

/** A running feed of a set of accounts. */
export interface AccountWatcher {
  start(): void;
  /** Replaces the watched set. */
  watch(pubkeys: readonly string[]): void;
  stop(): void;
}

/** Opens a feed that reports every update of the watched accounts to `onUpdate`. */
export type OpenAccountFeed = (onUpdate: AccountUpdate) => AccountWatcher;
