/**
 * The indexer's wiring: on the platform's PostgreSQL pool and NATS connection (the shared
 * bootstrap migrated the schema), builds the adapters (the chain RPC and account feed, the
 * round repository and publisher) and hands them to the app: leader election with the
 * chain-identity guard, and the leader session. main.ts creates it before the platform (the
 * ops server serves its checks) and starts it on the platform; startIndexer does both for
 * tests and benches, without signal handling or ops server.
 */
import { OrePdas, SolanaRpc, type RpcLimits, type RpcObserver } from '@gridlab/chain';
import { TransactionHistory } from '@gridlab/history';
import { natsNames } from '@gridlab/contracts';
import { ensureRoundsStream, openLiveBucket } from '@gridlab/bus';
import type { LeaderLock } from '@gridlab/db';
import { holdWriterLock, startPlatform, type Platform, type PlatformOptions } from '@gridlab/platform';
import { isGridlabError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import { ChainIdentityStore, HistoryStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository, type GapRange } from '@gridlab/rounds-store';
import type { Registry } from 'prom-client';
import { AccountFeed } from './adapters/chain/account-feed';
import { RoundPublisher } from './adapters/nats/round-publisher';
import type { ChainVerdict } from './domain/chain-identity';
import { checkChain } from './app/chain-guard';
import { HistoryFill, type HistoryFillStore } from './app/history-fill';
import { LeaderSession } from './app/leader-session';
import { indexerMetrics } from './app/metrics';

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
  readonly rpc?: { readonly limits?: RpcLimits; readonly batchMax?: number; readonly concurrency?: number };
  /**
   * History from transactions (HISTORY_FROM_ROUND): every round from `fromRound` up that
   * is not stored is rebuilt from its transactions. Absent: off (a closed round stays a gap).
   */
  readonly history?: { readonly fromRound: number | 'auto'; readonly concurrency?: number; readonly recheckMs?: number };
  /** How often the account feed pings its WebSocket (providers drop idle sockets). */
  readonly wsPingMs?: number;
  /** The stake the live snapshot's EV per square is figured for (LIVE_EV_STAKE_LAMPORTS; default 0.1 SOL). */
  readonly evStakeLamports?: number;
}

export interface IndexerDeps {
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly now?: () => Date;
}

export interface IndexerStatus {
  /** `refused`: the RPC serves another chain than the stored rounds come from. */
  readonly role: 'leader' | 'standby' | 'stopped' | 'refused';
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

/**
 * The indexer: once started, competes for the leader lock. The leader runs a
 * LeaderSession; a standby waits and takes over when the lock frees (the leader died or
 * stopped), starting with a backfill so nothing is lost.
 */
export function createIndexer(settings: IndexerSettings, options: { readonly now?: () => Date } = {}): IndexerProcess {
  const now = options.now ?? (() => new Date());
  // Metrics exist once the platform does: the client reports to whatever observes by then.
  let observe: RpcObserver | undefined;
  const rpc = new SolanaRpc(settings.rpcUrl, { ...settings.rpc, observe: (...seen) => observe?.(...seen) });
  const pdas = new OrePdas(settings.programId);
  const history = settings.history === undefined ? undefined : new TransactionHistory(rpc, pdas);
  const chainCheckMs = settings.chainCheckMs ?? CHAIN_CHECK_MS;
  const abort = new AbortController();
  const timers: NodeJS.Timeout[] = [];

  let role: IndexerStatus['role'] = 'standby';
  let gaps: GapRange[] = [];
  let session: LeaderSession | null = null;
  let historyFill: HistoryFill | null = null;
  let lock: LeaderLock | null = null;
  let chain: ChainVerdict | null = null;
  let refusalLogged: string | null = null;
  let metrics: ReturnType<typeof indexerMetrics> | null = null;

  const start = async (platform: Pick<Platform, 'logger' | 'metrics' | 'pool' | 'nc'>): Promise<void> => {
    const { logger, pool, nc } = platform;
    const counters = indexerMetrics(platform.metrics);
    metrics = counters;
    observe = (method, outcome, seconds, calls) => {
      counters.rpcRequests.inc({ method, outcome });
      counters.rpcSeconds.observe({ method }, seconds);
      if (outcome === 'ok') counters.rpcCalls.inc({ method: method.replace(/^batch:/, '') }, calls);
    };
    const repo = new RoundRepository(pool);
    const historyStore = new HistoryStore(pool);
    const fillStore: HistoryFillStore = {
      missingIds: (fromId, toId, limit) => historyStore.missingIds(fromId, toId, limit),
      missingCount: (fromId, toId) => historyStore.missingCount(fromId, toId),
      insert: (rounds) => repo.insertMany(rounds),
      markUnrecoverable: (rounds) => historyStore.markUnrecoverable(rounds),
      ruleBefore: (id) => repo.ruleBefore(id),
      setFloor: (floor) => historyStore.setFloor(floor),
      unrecoverable: (latest) => historyStore.unrecoverable(latest),
    };
    const identities = new ChainIdentityStore(pool);
    const names = natsNames(settings.natsPrefix);
    const streams = { replicas: settings.streamReplicas ?? 1 };
    await ensureRoundsStream(nc, names, streams);
    const kv = await openLiveBucket(nc, names, streams);
    const publisher = new RoundPublisher(nc, kv, names, logger.child({ component: 'publisher' }));

    /** Gives up leadership (the chain changed under us, or the lock was lost); lead() competes again. */
    const demote = async (to: 'refused' | 'standby' = 'refused'): Promise<void> => {
      const current = session;
      const held = lock as LeaderLock | null;
      const filling = historyFill;
      historyFill = null;
      await filling?.stop();
      session = null;
      lock = null;
      role = to;
      counters.leader.set(0);
      await current?.stop();
      await held?.release();
      if (!abort.signal.aborted) void lead();
    };

    /** Checks the chain's identity; on a mismatch logs it (once per reason) and stops leading. */
    const verifyChain = async (): Promise<void> => {
      let verdict: ChainVerdict;
      try {
        verdict = await checkChain({ rpc, identities, repo, pdas, logger });
      } catch (error) {
        // RPC or PostgreSQL unreachable: the last verdict stands (the rpc/postgres checks say why).
        if (isGridlabError(error) && error.kind === 'chain') counters.rpcErrors.inc();
        logger.warn('chain identity check failed; retrying', { err: error });
        return;
      }
      chain = verdict;
      if (verdict.ok) {
        if (role === 'refused') role = 'standby';
        refusalLogged = null;
        return;
      }
      if (refusalLogged !== verdict.reason) {
        refusalLogged = verdict.reason;
        logger.error(`refusing to index: ${verdict.reason}`, {
          currentGenesisHash: verdict.currentGenesisHash,
          recordedGenesisHash: verdict.recordedGenesisHash,
        });
      }
      if (role === 'leader') await demote();
      else role = 'refused';
    };

    const refreshGaps = async (): Promise<void> => {
      gaps = await repo.findGaps(100);
      counters.gapRounds.set(gaps.reduce((n, g) => n + g.toId - g.fromId + 1, 0));
      if (gaps.length > 0) logger.warn('gaps in stored rounds', { gaps: gaps.slice(0, 5), ranges: gaps.length });
    };

    const lead = async (): Promise<void> => {
      // Nothing is stored or published for a chain other than the recorded one.
      for (;;) {
        if (abort.signal.aborted) return;
        await verifyChain();
        if (chain?.ok === true) break;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            abort.signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, chainCheckMs);
          abort.signal.addEventListener('abort', done, { once: true });
        });
      }
      while (!abort.signal.aborted) {
        // A lost lock ends the process (SIGTERM, orderly shutdown), as for every single writer.
        lock = await holdWriterLock(settings.databaseUrl, `indexer:${settings.programId}`, {
          logger,
          signal: abort.signal,
          retryMs: settings.leaderRetryMs ?? 1000,
          metrics: platform.metrics,
          ...(settings.standByOnLostLock === true ? { onLost: () => void demote('standby') } : {}),
        });
        if (lock === null) return; // aborted while standing by
        if (abort.signal.aborted) {
          await lock.release();
          return;
        }
        // A standby may have waited long for the lock: the chain must still be the recorded one.
        await verifyChain();
        if (chain?.ok !== true) {
          await lock.release();
          lock = null;
          void lead();
          return;
        }
        role = 'leader';
        counters.leader.set(1);
        session = new LeaderSession({
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
        await session.start();
        await refreshGaps().catch(() => undefined);
        if (history !== undefined && settings.history !== undefined && session !== null && !abort.signal.aborted) {
          const leading = session;
          const floor = await resolveFloor(settings.history.fromRound, historyStore, repo, leading.settledUpTo());
          historyFill = new HistoryFill({
            history,
            store: fillStore,
            newestStored: () => repo.latestId(),
            publish: (round) => publisher.settled(round),
            metrics: counters,
            logger: logger.child({ component: 'history' }),
            floor,
            concurrency: settings.history.concurrency ?? 4,
            recheckMs: settings.history.recheckMs ?? GAP_CHECK_MS,
          });
          await historyFill.start();
        } else if (settings.history === undefined) {
          await fillStore.setFloor(null).catch(() => undefined);
        }
        return;
      }
    };

    /**
     * Stores the dump line of every stored round that has none (new rounds, imports), in
     * batches back to back until none is left; the next tick resumes after a failure.
     */
    let writingLines = false;
    const writeLines = async (): Promise<void> => {
      if (writingLines) return;
      writingLines = true;
      try {
        while (role === 'leader' && !abort.signal.aborted) {
          const written = await repo.writeLines(LINE_BATCH);
          counters.linesWritten.inc(written);
          if (written < LINE_BATCH) return;
        }
      } finally {
        writingLines = false;
      }
    };

    if (abort.signal.aborted) return;
    timers.push(
      setInterval(() => writeLines().catch((error: unknown) => logger.warn('storing round lines failed; retrying', { err: error })), LINES_INTERVAL_MS),
      setInterval(() => void verifyChain(), chainCheckMs),
      setInterval(() => refreshGaps().catch((error: unknown) => logger.warn('gap check failed', { err: error })), GAP_CHECK_MS),
    );
    void lead();
  };

  return {
    start,
    status: () => ({ role, gaps, chain }),
    checks: {
      rpc: async () => ({ slot: await rpc.getSlot() }),
      chain: async () => {
        if (chain === null) throw new Error('the chain identity is not checked yet');
        if (!chain.ok) throw new Error(`refusing to index: ${chain.reason}`);
        return { genesisHash: chain.genesisHash, recordedAt: chain.recordedAt.toISOString() };
      },
      role: async () => ({ role }),
      gaps: async () => ({ ranges: gaps.length, missingRounds: gaps.reduce((n, g) => n + g.toId - g.fromId + 1, 0), first: gaps.slice(0, 10) }),
      // Reported, not failed: /live and stored rounds are served while history fills in.
      history: async () => {
        if (settings.history === undefined) return { state: 'off' };
        const status = historyFill?.status();
        if (status === undefined) return { state: role === 'leader' ? 'starting' : 'not leading' };
        const p = status.progress;
        return {
          state: status.state,
          floor: status.floor,
          unrecoverable: status.unrecoverable,
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
      },
      // Reported, not failed: the indexer goes on with the rounds it can verify.
      payoutRules: async () => {
        const rejected = session?.rejectedRounds() ?? [];
        return { rejectedRounds: rejected.length, latestRejected: rejected.slice(-5) };
      },
    },
    stop: async () => {
      abort.abort();
      role = 'stopped';
      for (const timer of timers) clearInterval(timer);
      const filling = historyFill;
      const current = session;
      historyFill = null;
      session = null;
      // Both stop taking new work at once; closing the RPC client then ends their waits for budget or back-off.
      const stopping = Promise.all([filling?.stop(), current?.stop()]);
      rpc.close();
      await stopping;
      await (lock as LeaderLock | null)?.release();
      metrics?.leader.set(0);
    },
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
