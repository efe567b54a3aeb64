/**
 * The indexer's wiring: on the platform's PostgreSQL pool and NATS connection (the shared
 * bootstrap migrated the schema), builds the adapters (the chain RPC and account feed, the
 * round repository and publisher) and hands them to the app: leader election with the
 * chain-identity guard, and the leader session. main.ts creates it before the platform (the
 * ops server serves its checks) and starts it on the platform; startIndexer does both for
 * tests and benches, without signal handling or ops server.
 */
import { OrePdas, SolanaRpc, type RpcObserver, type SolanaRpcOptions } from '@gridlab/chain';
import { TransactionHistory, type RoundWithMiners } from '@gridlab/history';
import { MinerLedgerWriter } from '@gridlab/miners-store';
import { natsNames, type Round } from '@gridlab/contracts';
import { ensureRoundsStream, openLiveBucket } from '@gridlab/bus';
import { holdWriterLock, startPlatform, type Platform, type PlatformOptions } from '@gridlab/platform';
import type { Logger } from '@gridlab/logger';
import type { Pool } from '@gridlab/db';
import { ChainIdentityStore, HistoryStore, historyFillStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository, type GapRange } from '@gridlab/rounds-store';
import type { Registry } from 'prom-client';
import { AccountFeed } from './adapters/chain/account-feed';
import { liveDeploys } from './adapters/chain/live-deploys';
import { RoundPublisher } from './adapters/nats/round-publisher';
import type { ChainVerdict } from './domain/chain-identity';
import { checkChain } from './app/chain-guard';
import { HistoryFill, type HistoryFillStore } from './app/history-fill';
import { LeaderSession } from './app/leader-session';
import { Leadership, type LeadershipPorts, type Role } from './app/leadership';
import { indexerMetrics, type IndexerMetrics } from './app/metrics';
import { MinerLedgerFollower } from './app/miner-ledger';

export interface IndexerSettings {
  readonly databaseUrl: string;
  readonly natsUrl: string;
  readonly natsPrefix: string;
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly programId: string;
  readonly pollIntervalMs: number;
  readonly slotSeconds: number;
  /** How often a standby retries the leader lock. */
  readonly leaderRetryMs?: number;
  /** How often the chain's genesis hash is checked against the recorded one (default 5 s). */
  readonly chainCheckMs?: number;
  /**
   * A lost leader lock ends the process (SIGTERM, orderly shutdown), the one failover style
   * of every single writer. An indexer embedded in a test or bench process sets this to
   * stand by again instead (startIndexer does).
   */
  readonly standByOnLostLock?: boolean;
  /** Replicas of the ROUNDS stream and the LIVE bucket (NATS_STREAM_REPLICAS). */
  readonly streamReplicas?: number;
  /** The RPC provider's budgets, calls per batch and requests in flight (RPC_LIMITS, RPC_BATCH_MAX, RPC_CONCURRENCY). */
  readonly rpc?: Pick<SolanaRpcOptions, 'limits' | 'batchMax' | 'concurrency' | 'limitMarginMs'>;
  /**
   * History from transactions (HISTORY_FROM_ROUND): every round from `fromRound` up that
   * is not stored is rebuilt from its transactions. Absent: off (a closed round stays a gap).
   */
  readonly history?: { readonly fromRound: number | 'auto'; readonly concurrency?: number; readonly recheckMs?: number };
  /** How often the account feed pings its WebSocket (providers drop idle sockets). */
  readonly wsPingMs?: number;
  /** The stake the live snapshot's EV per square is figured for (LIVE_EV_STAKE_LAMPORTS; default 0.1 SOL). */
  readonly evStakeLamports?: number;
  /** Every settled round's miners and the live round's deploys, from their transactions (MINER_LEDGER; default on). */
  readonly minerLedger?: boolean;
  /** How often the leader looks for new rounds' miners and live deploys (default: the poll interval). */
  readonly ledgerIntervalMs?: number;
}

export interface IndexerDeps {
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly now?: () => Date;
}

interface IndexerStatus {
  /** `refused`: the RPC serves another chain than the stored rounds come from. */
  readonly role: Role;
  readonly gaps: readonly GapRange[];
  /** The last verdict on the chain the RPC serves (null before the first check). */
  readonly chain: ChainVerdict | null;
}

export interface Indexer {
  status(): IndexerStatus;
  /** Readiness checks beyond the platform's PostgreSQL and NATS: RPC, chain identity, role, gaps. */
  readonly checks: Record<string, () => Promise<Record<string, unknown> | void>>;
  stop(): Promise<void>;
}

/** An indexer created before its platform (whose ops server serves its checks), started on it. */
export interface IndexerProcess extends Indexer {
  /** Competes for the leader lock on the platform's connections; returns once standing by or leading. */
  start(platform: Pick<Platform, 'logger' | 'metrics' | 'pool' | 'nc'>): Promise<void>;
}

/** What the indexer asks of the shared bootstrap: its schema migrated, a pool of five. */
export const INDEXER_PLATFORM = {
  migrate: { schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR },
  poolSize: 5,
} as const satisfies PlatformOptions;

const GAP_CHECK_MS = 10_000;
/** How often the leader looks for stored rounds without their dump line (see round_lines). */
const LINES_INTERVAL_MS = 1_000;
/** Rounds per line-writing transaction: it holds the totals row's lock, which inserts wait for (~75 ms). */
const LINE_BATCH = 5_000;
const CHAIN_CHECK_MS = 5_000;
/** A typical miner's stake on one square: 0.1 SOL. */
const DEFAULT_EV_STAKE = 100_000_000;

/** The chain as the indexer reads it: RPC client, program addresses, transaction history (when on). */
interface Chain {
  readonly rpc: SolanaRpc;
  readonly pdas: OrePdas;
  readonly history: TransactionHistory | undefined;
  /** Rounds read with every deploy kept, for their miners (null: the ledger is off). */
  readonly ledger: TransactionHistory | null;
}
/** Rounds the ledger reads per pass, and ids its walk down the stored history covers per pass. */
const LEDGER_BATCH = 20;
const LEDGER_BACKFILL_SPAN = 1000;
/** How often closed blocks of the ledger are packed and old hourly rollups dropped. */
const LEDGER_MAINTAIN_MS = 10 * 60_000;
/** How often the top miners of each window are summed again (the gateway serves the last sums). */
const LEDGER_TOPS_MS = 60_000;

/** What the leader writes through, on the platform's connections. */
interface Stores {
  readonly repo: RoundRepository;
  readonly miners: MinerLedgerWriter;
  readonly publisher: RoundPublisher;
  readonly counters: IndexerMetrics;
  readonly logger: Logger;
}

/**
 * The indexer: the chain client is created now (the ops server checks it), the rest on
 * the platform's connections once started. Leadership (app/leadership.ts) decides who
 * indexes.
 */
export function createIndexer(settings: IndexerSettings, options: { readonly now?: () => Date } = {}): IndexerProcess {
  const now = options.now ?? (() => new Date());
  // Metrics exist once the platform does: the client reports to whatever observes by then.
  let observe: RpcObserver | undefined;
  const rpc = new SolanaRpc(settings.rpcUrl, { ...settings.rpc, observe: (...seen) => observe?.(...seen) });
  const pdas = new OrePdas(settings.programId);
  const ledgerOn = settings.minerLedger ?? true;
  const ledger = ledgerOn ? new TransactionHistory(rpc, pdas, { ledger: true }) : null;
  // With the ledger on, the history fill reads every deploy too and writes the miners of the rounds it rebuilds.
  const chain: Chain = { rpc, pdas, history: settings.history === undefined ? undefined : (ledger ?? new TransactionHistory(rpc, pdas)), ledger };
  const leadership = new Leadership({
    chainCheckMs: settings.chainCheckMs ?? CHAIN_CHECK_MS,
    gapCheckMs: GAP_CHECK_MS,
    linesIntervalMs: LINES_INTERVAL_MS,
    lineBatch: LINE_BATCH,
    ledgerIntervalMs: settings.ledgerIntervalMs ?? settings.pollIntervalMs,
  });
  return {
    start: async (platform) => {
      const counters = indexerMetrics(platform.metrics);
      observe = (method, outcome, seconds, calls) => {
        counters.rpcRequests.inc({ method, outcome });
        counters.rpcSeconds.observe({ method }, seconds);
        if (outcome === 'ok') counters.rpcCalls.inc({ method: method.replace(/^batch:/, '') }, calls);
      };
      leadership.start(await leadershipPorts(settings, platform, chain, counters, now));
    },
    status: () => leadership.status(),
    checks: indexerChecks(settings, rpc, leadership),
    // Closing the RPC client ends the session's and the fill's waits for budget or back-off.
    stop: () => leadership.stop(() => rpc.close()),
  };
}

/** Leadership's ports on the platform's connections: the stores, the rounds stream and live bucket, the lock. */
async function leadershipPorts(settings: IndexerSettings, platform: Pick<Platform, 'logger' | 'metrics' | 'pool' | 'nc'>, chain: Chain, counters: IndexerMetrics, now: () => Date): Promise<LeadershipPorts> {
  const { logger, pool, nc } = platform;
  const repo = new RoundRepository(pool);
  const identities = new ChainIdentityStore(pool);
  const names = natsNames(settings.natsPrefix);
  const streams = { replicas: settings.streamReplicas ?? 1 };
  await ensureRoundsStream(nc, names, streams);
  const kv = await openLiveBucket(nc, names, streams);
  const stores: Stores = { repo, miners: new MinerLedgerWriter(pool, now), publisher: new RoundPublisher(nc, kv, names, logger.child({ component: 'publisher' })), counters, logger };
  return {
    checkChain: () => checkChain({ rpc: chain.rpc, identities, repo, pdas: chain.pdas, logger }),
    holdLock: (signal, onLost) =>
      holdWriterLock(settings.databaseUrl, `indexer:${settings.programId}`, {
        logger,
        signal,
        retryMs: settings.leaderRetryMs ?? 1000,
        metrics: platform.metrics,
        ...(settings.standByOnLostLock === true ? { onLost } : {}),
      }),
    openSession: () => leaderSession(settings, chain, stores, now),
    openHistoryFill: historyFillOf(settings, chain, stores, pool),
    rounds: repo,
    ledger: ledgerFollower(chain, stores, now),
    metrics: counters,
    logger,
  };
}

/** The miner ledger's follower on the chain, the ledger tables and the publisher; null when the ledger is off. */
function ledgerFollower({ rpc, pdas, ledger }: Chain, { repo, miners, publisher, counters, logger }: Stores, now: () => Date): MinerLedgerFollower | null {
  if (ledger === null) return null;
  return new MinerLedgerFollower(
    {
      pending: async (fromId, toId, limit, skip = []) => {
        const ids = await miners.pendingRounds(fromId, toId, limit, skip);
        if (ids.length === 0) return [];
        const rounds = await repo.getRounds({ fromId: ids[ids.length - 1]!, toId: ids[0]! });
        const wanted = new Set(ids);
        return rounds.filter((r) => wanted.has(r.id)).sort((a, b) => b.id - a.id);
      },
      storedRange: () => miners.storedRoundRange(),
      fetch: (id) => ledger.fetch(id, null),
      write: (round, rows) => miners.writeRound(ledgerRound(round), rows),
      publish: (rows) => publisher.miners(rows),
      fold: () => miners.foldRollups(),
      compact: (newest) => miners.compact(newest),
      expireHours: (at) => miners.expireHours(at),
      refreshTops: (at) => miners.refreshTops(at),
      liveDeploys: (roundId, after) => liveDeploys(rpc, pdas, roundId, after),
      publishDeploy: (deploy) => {
        publisher.deployed(deploy);
        counters.minerDeploysPublished.inc();
      },
    },
    counters,
    logger.child({ component: 'ledger' }),
    { batch: LEDGER_BATCH, backfillSpan: LEDGER_BACKFILL_SPAN, maintainEveryMs: LEDGER_MAINTAIN_MS, topsEveryMs: LEDGER_TOPS_MS, now },
  );
}

function ledgerRound(round: Round): { id: number; settledAt: Date; productionCost: number | null } {
  return { id: round.id, settledAt: new Date(round.settledAt), productionCost: round.productionCost };
}

/** A leader session: the account feed (WebSocket and polling), the store and the publisher. */
function leaderSession(settings: IndexerSettings, { rpc, pdas, history }: Chain, { repo, publisher, counters, logger }: Stores, now: () => Date): LeaderSession {
  return new LeaderSession({
    rpc,
    openFeed: (onUpdate) =>
      new AccountFeed({
        wsUrl: settings.wsUrl,
        rpc,
        pollIntervalMs: settings.pollIntervalMs,
        logger: logger.child({ component: 'feed' }),
        counters: { wsReconnect: () => counters.wsReconnects.inc(), rpcError: () => counters.rpcErrors.inc() },
        onUpdate,
        ...(settings.wsPingMs === undefined ? {} : { pingIntervalMs: settings.wsPingMs }),
      }),
    pdas,
    ...(history === undefined ? {} : { history }),
    repo,
    publisher,
    metrics: counters,
    logger: logger.child({ component: 'leader' }),
    pollIntervalMs: settings.pollIntervalMs,
    slotSeconds: settings.slotSeconds,
    evStakeLamports: settings.evStakeLamports ?? DEFAULT_EV_STAKE,
    now,
  });
}

/** Opens the leader's history fill from its floor; with history from transactions off, records that there is no floor. */
function historyFillOf(settings: IndexerSettings, { history }: Chain, { repo, miners, publisher, counters, logger }: Stores, pool: Pool): LeadershipPorts['openHistoryFill'] {
  const historyStore = new HistoryStore(pool);
  const store: HistoryFillStore = {
    ...historyFillStore(pool),
    // History lands a chunk at a time: its rows reach the rollups when the fill folds them (every thousand rounds and at the end).
    insertMiners: async (rounds: readonly RoundWithMiners[]) => {
      const written = await miners.writeRounds(rounds.map((r) => ({ round: ledgerRound(r.round), miners: r.miners })), { deferRollups: true });
      for (const { round, miners: rows } of rounds) {
        if (!written.has(round.id)) continue;
        counters.minerRows.inc(rows.length);
        await publisher.miners({ roundId: round.id, count: rows.length, miners: rows.rows() });
      }
    },
    foldMiners: async () => void (await miners.foldRollups()),
  };
  const fill = settings.history;
  if (fill === undefined || history === undefined) return async () => (await store.setFloor(null).catch(() => undefined), null);
  return async (settledUpTo) =>
    new HistoryFill({
      history,
      store,
      newestStored: () => repo.latestId(),
      publish: (round) => publisher.settled(round),
      metrics: counters,
      logger: logger.child({ component: 'history' }),
      floor: await resolveFloor(fill.fromRound, historyStore, repo, settledUpTo),
      concurrency: fill.concurrency ?? 4,
      recheckMs: fill.recheckMs ?? GAP_CHECK_MS,
    });
}

/** Readiness beyond PostgreSQL and NATS: the RPC, the chain's identity, the role, the gaps, the history, the payout rules. */
function indexerChecks(settings: IndexerSettings, rpc: SolanaRpc, leadership: Leadership): Indexer['checks'] {
  return {
    rpc: async () => ({ slot: await rpc.getSlot() }),
    chain: async () => {
      const { chain } = leadership.status();
      if (chain === null) throw new Error('the chain identity is not checked yet');
      if (!chain.ok) throw new Error(`refusing to index: ${chain.reason}`);
      return { genesisHash: chain.genesisHash, recordedAt: chain.recordedAt.toISOString() };
    },
    role: async () => ({ role: leadership.status().role }),
    gaps: async () => {
      const { gaps } = leadership.status();
      return { ranges: gaps.length, missingRounds: gaps.reduce((n, g) => n + g.toId - g.fromId + 1, 0), first: gaps.slice(0, 10) };
    },
    // Reported, not failed: /live and stored rounds are served while history fills in.
    history: async () => historyReport(settings, leadership),
    // Reported, not failed: the indexer goes on with the rounds it can verify.
    payoutRules: async () => {
      const rejected = leadership.leading.session?.rejectedRounds() ?? [];
      return { rejectedRounds: rejected.length, latestRejected: rejected.slice(-5) };
    },
  };
}

function historyReport(settings: IndexerSettings, leadership: Leadership): Record<string, unknown> {
  if (settings.history === undefined) return { state: 'off' };
  const status = leadership.leading.historyFill?.status();
  if (status === undefined) return { state: leadership.status().role === 'leader' ? 'starting' : 'not leading' };
  const p = status.progress;
  return {
    state: status.state,
    floor: status.floor,
    refused: status.refused,
    ...(p === null
      ? {}
      : {
          fromId: p.fromId,
          toId: p.toId,
          done: p.done,
          total: p.total,
          remaining: Math.max(0, p.total - p.done),
          lastId: p.lastId,
          roundsPerSecond: Math.round(p.roundsPerSecond * 10) / 10,
          transactionsPerSecond: Math.round(p.transactionsPerSecond),
          rpcCalls: p.calls,
          etaSeconds: p.etaSeconds === null ? null : Math.round(p.etaSeconds),
        }),
  };
}

/**
 * The history floor: the configured round id, or (`auto`) the one recorded at an earlier
 * start, else the oldest round stored now (the rounds the first backfill found open on
 * chain), else the newest settled round. Recorded, so every later start keeps it.
 */
async function resolveFloor(configured: number | 'auto', store: HistoryStore, repo: RoundRepository, settledUpTo: number | null): Promise<number> {
  if (configured !== 'auto') return configured;
  const recorded = await store.floor();
  if (recorded !== null) return recorded;
  const oldest = (await repo.aggregates()).firstId;
  return oldest ?? Math.max(0, settledUpTo ?? 0);
}

/**
 * An indexer on a platform of its own, for tests and benches: no ops server, no signal
 * handling; stop() stops the indexer, then closes its connections.
 */
export async function startIndexer(settings: IndexerSettings, deps: IndexerDeps): Promise<Indexer> {
  const platform = await startPlatform(
    'indexer',
    { DATABASE_URL: settings.databaseUrl, NATS_URL: settings.natsUrl, LOG_LEVEL: 'info' },
    { ...INDEXER_PLATFORM, signals: false, logger: deps.logger, metrics: deps.metrics },
  );
  const indexer = createIndexer({ ...settings, standByOnLostLock: true }, deps.now === undefined ? {} : { now: deps.now });
  await indexer.start(platform);
  return {
    status: () => indexer.status(),
    checks: indexer.checks,
    stop: async () => {
      await indexer.stop();
      await platform.stop();
    },
  };
}
