/**
 * The ports lab-forward's app needs, declared here and implemented by the lab and rounds
 * stores (main.ts wires them). Rows are lab-store's types; the stores' SQL stays there.
 */
import type { Round } from '@gridlab/contracts';
import type { Decision } from '@gridlab/strategy';
import type {
  ActiveSession,
  LeaderboardRow,
  PredictionRow,
  SessionState,
  SettledHit,
  SettledPnl,
  SettlementRow,
  StatsRow,
  StopRow,
  StrategyRow,
} from '@gridlab/lab-store';

/** Settled rounds as stored (the indexer's table). */
export interface StoredRounds {
  getRounds(range: { fromId: number; toId?: number; limit: number }): Promise<Round[]>;
  latestId(): Promise<number | null>;
  /**
   * The leading run of stored rounds after `last`, at most `limit`, without a hole: a
   * missing id holds the rounds after it back until it is stored or given up.
   */
  contiguousAfter(last: number, limit: number): Promise<Round[]>;
}

/** The forward writer's records: its committed position, and transactions holding it. */
export interface ForwardLedger {
  /** Last round settled, or null before the writer's first start. */
  settledThrough(): Promise<number | null>;
  /** Starts the writer at `roundId` when it has never run; the position now. */
  initProgress(roundId: number): Promise<number>;
  /** The payout arithmetic the stored figures were priced with (`PAYOUT_REVISION` once re-priced). */
  payoutRevision(): Promise<string>;
  /** Runs `fn` in one transaction that holds the position against command handlers. */
  tx<T>(fn: (tx: ForwardTx) => Promise<T>): Promise<T>;
}

/** One transaction of the forward writer. */
export interface ForwardTx {
  /** The committed position, read under the lock. */
  readonly settledThrough: number | null;
  activeSessions(): Promise<ActiveSession[]>;
  sessionStates(ids: readonly string[]): Promise<SessionState[]>;
  /** The strategies whose prediction for `roundId` is recorded. */
  recordedFor(roundId: number): Promise<Set<string>>;
  record(roundId: number, at: Date, rows: readonly PredictionRow[]): Promise<void>;
  settle(roundId: number, winningSquare: number | null, at: Date, rows: readonly SettlementRow[]): Promise<void>;
  /** Drops predictions before `roundId` that never settle (rounds passed over). */
  dropUnsettledBefore(roundId: number): Promise<void>;
  saveStats(rows: readonly StatsRow[]): Promise<void>;
  /** Stops the strategies of owners whose subscription ended, resumes renewed ones. */
  followSubscriptions(at: Date): Promise<{ stopped: number; resumed: number }>;
  stop(roundId: number, at: Date, rows: readonly StopRow[]): Promise<void>;
  saveProgress(roundId: number): Promise<void>;
  regenerateLeaderboard(minRounds: number, size: number, at: Date): Promise<void>;
  /** Settled winning predictions, strategy by strategy in round order. */
  settledHits(): Promise<SettledHit[]>;
  /** Settled bet-rounds of some strategies, each in round order. */
  settledBets(ids: readonly string[]): Promise<{ strategyId: string; roundId: number; squares: number; stakeLamports: number; pnlLamports: number }[]>;
  statsOf(ids: readonly string[]): Promise<{ stats: StatsRow; sessionStartRoundId: number }[]>;
  repricePredictions(rows: readonly { strategyId: string; roundId: number; pnlLamports: number }[]): Promise<void>;
  savePayoutRevision(revision: string): Promise<void>;
}

/** The strategies' records, for the command handlers. */
export interface StrategyRecords {
  /** The wallet key of a subscriber, or null. */
  ownerOf(subscriberId: string): Promise<string | null>;
  /** Runs `fn` in one transaction between two settled rounds. */
  session<T>(fn: (tx: StrategySession) => Promise<T>): Promise<T>;
  list(owner: string): Promise<{ strategy: StrategyRow; stats: StatsRow }[]>;
  find(owner: string, id: string): Promise<StrategyRow | null>;
  predictionCounts(id: string): Promise<{ total: number; pending: number }>;
  forward(owner: string, id: string): Promise<{ strategy: StrategyRow; stats: StatsRow; pending: number; series: SettledPnl[] } | null>;
  leaderboard(): Promise<{ generatedAt: Date; entries: LeaderboardRow[] }>;
  leaderboardEntry(id: string): Promise<{ entry: LeaderboardRow; series: SettledPnl[] } | null>;
}

/** One transaction of a command handler: no settlement commits meanwhile, so sessions start and end on a round boundary. */
interface StrategySession {
  /** Last round the writer settled (null before its first start). */
  readonly settledThrough: number | null;
  /** Newest round stored by the indexer (null when none). */
  readonly latestStored: number | null;
  /** Serializes the creations of one owner (the per-owner limit). */
  lockOwner(owner: string): Promise<void>;
  countOwned(owner: string): Promise<number>;
  insert(row: StrategyRow): Promise<void>;
  findForUpdate(owner: string, id: string): Promise<StrategyRow | null>;
  findDeletedForUpdate(owner: string, id: string): Promise<{ row: StrategyRow; wasActive: boolean } | null>;
  update(row: StrategyRow): Promise<void>;
  dropPending(id: string): Promise<void>;
  delete(row: StrategyRow, at: Date): Promise<void>;
  restore(row: StrategyRow): Promise<void>;
}

/** Observers of the forward writer (metrics, logs). */
export interface WriterEvents {
  settled(roundId: number, strategies: number, ms: number): void;
  /** Decisions recorded (committed) for `roundId`, each strategy's. */
  recorded(roundId: number, decisions: readonly { readonly strategyId: string; readonly decision: Decision }[], ms: number): void;
}
