/**
 * The ports the indexer's app needs, declared here and implemented by adapters/, the
 * chain client and the rounds store (src/indexer.ts wires them).
 */
import type { SolanaRpc } from '@gridlab/chain';
import type { LiveSnapshot, PayoutRule, Round, RoundOpened } from '@gridlab/contracts';
import type { ChainIdentity, GapRange } from '@gridlab/rounds-store';

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

/** The reads of the chain the indexer makes (the Solana RPC client). */
export type ChainReader = Pick<SolanaRpc, 'getGenesisHash' | 'getMultipleAccounts' | 'getAccount' | 'getProgramAccounts'>;

/** The stored rounds (the indexer's schema): what the leader reads and writes. */
export interface RoundStore {
  latestId(): Promise<number | null>;
  getRounds(range: { fromId?: number; toId?: number; limit?: number }): Promise<Round[]>;
  storedIds(ids: readonly number[]): Promise<Set<number>>;
  /** The payout rule of the newest stored round before `id`. */
  ruleBefore(id: number): Promise<PayoutRule | null>;
  /** Stores rounds; how many were new. */
  insertMany(rounds: readonly Round[]): Promise<number>;
  /** Stores one settled round; false when it was already stored. */
  insertSettled(round: Round): Promise<boolean>;
  /** Ranges of ids missing between stored rounds, at most `limit`. */
  findGaps(limit: number): Promise<GapRange[]>;
  /** Stores the dump line of up to `maxRows` stored rounds that have none; how many. */
  writeLines(maxRows: number): Promise<number>;
}

/** The identity of the chain the stored rounds come from. */
export interface ChainIdentities {
  recorded(): Promise<ChainIdentity | null>;
  /** Records `genesisHash` unless one is recorded; the identity recorded now. */
  recordIfAbsent(genesisHash: string): Promise<ChainIdentity>;
}

/** The leader lock, while held. */
export interface HeldLock {
  release(): Promise<void>;
}
