/** The gateway's parts, built and owned by the platform in the order main.ts lists them. */
import { resolve } from 'node:path';
import { FiringLog } from '@gridlab/alerts-store';
import { KeyStore, SiwsNonceLedger } from '@gridlab/billing-store';
import { OrePdas, SolanaRpc } from '@gridlab/chain';
import { encodeEvent } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { createPool } from '@gridlab/db';
import { EventRepository } from '@gridlab/events-store';
import { MinerLedgerStore, type MinerLedgerReads } from '@gridlab/miners-store';
import type { Platform, PlatformOptions } from '@gridlab/platform';
import { RoundRepository } from '@gridlab/rounds-store';
import { advisory, redisCheck } from '@gridlab/runtime';
import { Redis } from 'ioredis';
import { eventReplayPages, gatewayMetrics } from './adapters/metrics';
import { NO_MINER_CLAIMS, RpcMinerClaims, type MinerClaimsReader } from './adapters/chain/miner-claims';
import { followAlertFirings } from './adapters/nats/alert-feed';
import { followMiners } from './adapters/nats/miner-feed';
import { BillingClient } from './adapters/nats/billing-client';
import { EventFeed } from './adapters/nats/event-feed';
import { LabClient } from './adapters/nats/lab-client';
import { followLive, type LiveCache } from './adapters/nats/live-feed';
import { followRevocations, followSessionEnds } from './adapters/nats/revocations';
import { StrategiesClient } from './adapters/nats/strategies-client';
import { AlertsClient } from './adapters/nats/alerts-client';
import { PgSiwsNonces } from './adapters/pg/siws-nonces';
import { RedisGate } from './adapters/redis/redis-gate';
import { followTombstones } from './adapters/redis/tombstones';
import { Access } from './app/access';
import { keySharingResponder } from './app/key-sharing';
import { SessionGuard } from './app/session-guard';
import type { GatewayConfig } from './config';
import { InFlight } from './domain/in-flight';
import type { SessionKeys } from './domain/session';
import { StreamRegistry } from './domain/stream-registry';
import { KEY_POLICY } from './domain/token-bucket';
import { DEFAULT_LEASE_POLICY } from './domain/token-lease';
import { createApp, type AppDeps } from './http/app';
import { clientAddress, trustedProxies } from './http/client-address';
import { Dashboard } from './http/dashboard';
import { EventStream } from './http/event-stream';
import { AlertStream } from './http/alert-stream';
import { MinerStream } from './http/miner-stream';
import { createGatewayServer } from './http/server';
import { SnapshotStream } from './http/sse';

const SHARING_WINDOW_MS = 5 * 60 * 1000;

/** The request/reply clients of billing, the Strategy Lab's backtests and its strategies, and the notifier's alert rules. */
export interface Clients {
  readonly billing: BillingClient;
  readonly lab: LabClient;
  readonly strategies: StrategiesClient;
  readonly alerts: AlertsClient;
}

/** Who may call, and the streams and dumps their keys and sessions hold open. */
export interface Control {
  readonly access: Access;
  readonly keyStore: KeyStore;
  readonly sessions: SessionGuard;
  readonly streams: StreamRegistry;
  readonly dumps: StreamRegistry;
}

/** The event log's rows and the feed of new ones. */
export interface Events {
  readonly repository: EventRepository;
  readonly feed: EventFeed;
}

export function platformOptions(config: GatewayConfig, live: LiveCache): PlatformOptions {
  return {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    checks: {
      // Advisory: a stale feed is the indexer's (or the chain's) trouble; this replica still serves history.
      live: advisory(async () => {
        const view = live.view();
        if (view === null) throw new Error('no live snapshot received yet');
        const details = { roundId: view.held.snapshot.roundId, slot: view.held.snapshot.slot, ageSeconds: view.ageSeconds, staleAfterSeconds: live.staleAfterSeconds };
        if (view.stale) {
          throw new Error(`live feed stale: no snapshot for ${view.ageSeconds} s (threshold ${live.staleAfterSeconds} s); /live serves round ${details.roundId} marked stale`);
        }
        return details;
      }),
    },
    pendingChecks: { redis: 'not connected yet' },
    // Without Redis the gateway fails soft (PostgreSQL key lookups, in-process limits): degraded, still ready.
    optionalChecks: ['redis'],
    poolSize: 10,
  };
}

/** Redis: key cache, buckets, sharing tracker, tombstones; the gateway works on without it. */
export async function connectRedis(platform: Platform, config: GatewayConfig): Promise<Redis> {
  const { logger } = platform;
  const redis = new Redis(config.REDIS_URL, {
    lazyConnect: true,
    commandTimeout: config.REDIS_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    enableAutoPipelining: true,
  });
  platform.own('redis', redis, (r) => r.quit().then(() => undefined, () => undefined));
  redis.on('error', (error: unknown) => logger.debug('redis error', { err: error }));
  platform.check('redis', redisCheck(redis));
  await redis.connect().catch((error: unknown) => logger.warn('redis not reachable at start; using fallbacks', { err: error }));
  return redis;
}

/**
 * Rounds read over the dump pool. A dump's REPEATABLE READ transaction waits on its
 * client between statements: PostgreSQL ends one left idle past twice the gateway's own
 * window (a backstop: its snapshot holds back vacuum).
 */
export function dumpPool(platform: Platform, config: GatewayConfig): RoundRepository {
  const pool = platform.own(
    'dump pool',
    createPool(config.DATABASE_URL, { max: config.DUMP_POOL_SIZE, applicationName: 'api-gateway-dump', idleInTransactionTimeoutMs: 2 * config.DUMP_IDLE_TIMEOUT_S * 1000 }),
    (p) => p.end(),
  );
  return new RoundRepository(pool);
}

export function natsClients(platform: Platform, config: GatewayConfig): Clients {
  const names = natsNames(config.NATS_PREFIX);
  return {
    billing: new BillingClient(platform.nc, names, config.COMMAND_TIMEOUT_MS),
    lab: new LabClient(platform.nc, names, config.LAB_TIMEOUT_MS),
    strategies: new StrategiesClient(platform.nc, names, config.COMMAND_TIMEOUT_MS),
    alerts: new AlertsClient(platform.nc, names, config.COMMAND_TIMEOUT_MS),
  };
}

/**
 * The request path (app/access.ts) over the Redis gate and billing's key table, reporting
 * Redis fallbacks and answering key sharing by the configured policy; dashboard sessions;
 * the caps on open streams and dumps.
 */
export function controlAccess(platform: Platform, config: GatewayConfig, redis: Redis, billing: BillingClient, live: LiveCache): Control {
  const { logger, nc } = platform;
  const lease = config.RATE_LIMIT_LEASE_MS === 0 ? { ...DEFAULT_LEASE_POLICY, maxTokens: 0 } : { ...DEFAULT_LEASE_POLICY, ttlMs: config.RATE_LIMIT_LEASE_MS };
  const gate = new RedisGate(redis, { prefix: config.REDIS_PREFIX, keyPolicy: KEY_POLICY, sharingWindowMs: SHARING_WINDOW_MS, maxAddressesPerKey: config.KEY_SHARING_MAX_ADDRESSES, lease });
  const keyStore = new KeyStore(platform.pool, config.API_KEY_HMAC_SECRET);
  const streams = new StreamRegistry({ perKey: config.STREAMS_PER_KEY, perAddress: config.STREAMS_PER_ADDRESS });
  const dumps = new StreamRegistry({ perKey: config.DUMPS_PER_KEY, perAddress: config.DUMPS_PER_ADDRESS });
  const sessions = new SessionGuard(
    { current: (ids) => keyStore.sessionEpochs(ids), end: (subscriberId, epoch) => billing.endSessions(subscriberId, epoch) },
    (subscriberId, epoch) => {
      const closed = streams.endSessions(subscriberId, epoch) + dumps.endSessions(subscriberId, epoch);
      if (closed > 0) logger.info('closed the streams of signed-out dashboard sessions', { streams: closed, subscriberId });
    },
  );
  const names = natsNames(config.NATS_PREFIX);
  const counters = gatewayMetrics(platform.metrics, { liveAgeSeconds: () => live.view()?.ageSeconds ?? null });
  const keySharing = keySharingResponder(
    { policy: config.KEY_SHARING_POLICY, windowMs: SHARING_WINDOW_MS },
    {
      counted: () => counters.keySharingSignals.inc(),
      announce: (fact) => nc.publish(names.subjects.keyShared, encodeEvent('keyShared', fact)),
      revoke: (keyHash) => billing.revokeKey(keyHash),
    },
    logger,
  );
  const access = new Access({ gate, keys: keyStore, sessions, events: { redisFallback: (active) => counters.rateLimitFallback.set(active ? 1 : 0), keySharing } }, logger.child({ component: 'auth' }), {
    failurePolicy: { capacity: config.AUTH_FAILURE_BURST, refillPerSecond: config.AUTH_FAILURES_PER_MINUTE / 60 },
    negativeTtlMs: config.NEGATIVE_KEY_CACHE_TTL_S * 1000,
    negativeMaxEntries: config.NEGATIVE_KEY_CACHE_SIZE,
    positiveTtlMs: config.POSITIVE_KEY_CACHE_TTL_S * 1000,
    positiveMaxEntries: config.POSITIVE_KEY_CACHE_SIZE,
    lease,
    sharingWindowMs: SHARING_WINDOW_MS,
  });
  return { access, keyStore, sessions, streams, dumps };
}

/**
 * Ends at once, on every replica, the streams of revoked keys (billing's fact on NATS,
 * and every revoker's tombstone in Redis: the CLI's too), of signed-out sessions, and of
 * keys and sessions that expired.
 */
export function closeRevokedStreams(platform: Platform, config: GatewayConfig, redis: Redis, { access, sessions, streams, dumps }: Control): void {
  const { logger, nc } = platform;
  const names = natsNames(config.NATS_PREFIX);
  const expiry = setInterval(() => {
    const closed = streams.closeExpired(Date.now()) + dumps.closeExpired(Date.now());
    if (closed > 0) logger.info('closed the streams of expired keys and sessions', { streams: closed });
    // A sign-out announcement this replica missed still ends the session's streams here.
    sessions.recheck([...new Set([...streams.sessionSubscribers(), ...dumps.sessionSubscribers()])]).catch((error: unknown) => logger.warn('session epochs not re-checked', { err: error }));
  }, config.STREAM_EXPIRY_CHECK_S * 1000);
  expiry.unref();
  platform.own('stream expiry', expiry, clearInterval);
  const revoked = (keyHashHex: string): void => {
    access.forget(keyHashHex);
    const closed = streams.revoke(keyHashHex) + dumps.revoke(keyHashHex);
    if (closed > 0) logger.info('closed the streams of a revoked key', { streams: closed });
  };
  const following = [
    followRevocations(nc, names, revoked, logger.child({ component: 'revocations' })),
    followTombstones(redis, config.REDIS_PREFIX, revoked, logger.child({ component: 'revocations' })),
    followSessionEnds(nc, names, (subscriberId, epoch) => sessions.ended(subscriberId, epoch), logger.child({ component: 'sessions' })),
  ];
  platform.own('revocations', following, (stops) => stops.forEach((stop) => stop()));
}

export async function followEvents(platform: Platform, config: GatewayConfig): Promise<Events> {
  const repository = new EventRepository(platform.pool);
  const feed = new EventFeed(repository, platform.logger.child({ component: 'events' }));
  platform.own('event feed', await feed.start(platform.nc, natsNames(config.NATS_PREFIX)), (stop) => stop());
  return { repository, feed };
}

export async function followLiveSnapshots(platform: Platform, config: GatewayConfig, live: LiveCache): Promise<void> {
  const following = await followLive(platform.nc, natsNames(config.NATS_PREFIX), live, platform.logger.child({ component: 'live' }), { replicas: config.NATS_STREAM_REPLICAS });
  platform.own('live feed', following, (stop) => stop());
}

/** What the HTTP API serves from, besides the platform's connections. */
export interface Sources {
  readonly access: Control;
  readonly clients: Clients;
  readonly live: LiveCache;
  readonly events: Events;
  readonly dumps: RoundRepository;
  readonly sessionKeys: SessionKeys;
  /** Every wallet's ledger: libs/miners-store's reads over the main pool. */
  readonly miners: MinerLedgerReads;
  /** The notifier's firings (read only), replayed to alert streams that resume. */
  readonly firings: FiringLog;
}

/** The HTTP API and its streams; stopping closes idle and streaming connections at once. */
export async function serveHttp(platform: Platform, config: GatewayConfig, sources: Sources): Promise<void> {
  const deps = appDeps(platform, config, sources);
  const replayPages = eventReplayPages(platform.metrics);
  const eventStream = new EventStream(sources.events.repository, sources.events.feed, () => replayPages.inc());
  const stream = new SnapshotStream(deps.live);
  const minerStream = new MinerStream(deps.miners);
  const names = natsNames(config.NATS_PREFIX);
  platform.own('miner feed', followMiners(platform.nc, names, minerStream, platform.logger.child({ component: 'miners' })), (stop) => stop());
  const alertStream = new AlertStream(sources.firings);
  platform.own('alert feed', followAlertFirings(platform.nc, names, alertStream, platform.logger.child({ component: 'alerts' })), (stop) => stop());
  const server = createGatewayServer(createApp(deps), deps, { snapshots: stream, events: eventStream, miners: minerStream, alerts: alertStream });
  server.on('close', () => stream.close());
  server.keepAliveTimeout = 65_000;
  platform.own('http', server, (s) =>
    new Promise<void>((closed) => {
      s.close(() => closed());
      // Streams never end on their own: close idle and streaming connections now.
      s.closeIdleConnections();
      stream.close();
      eventStream.close();
      minerStream.close();
      alertStream.close();
    }),
  );
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(config.PORT, config.HOST, () => listening());
  });
  platform.logger.info('gateway listening', { url: `http://${config.HOST}:${config.PORT}` });
}

function appDeps(platform: Platform, config: GatewayConfig, { access: control, clients, live, events, dumps, sessionKeys, miners }: Sources): AppDeps {
  const { logger, metrics, pool } = platform;
  const proxies = trustedProxies(config.TRUSTED_PROXIES);
  const dashboard = new Dashboard({
    access: control.access,
    wallets: control.keyStore,
    sessions: control.sessions,
    siwsNonces: new PgSiwsNonces(new SiwsNonceLedger(pool)),
    keys: sessionKeys,
    sessionTtlMs: config.SESSION_TTL_S * 1000,
    allowedOrigins: config.DASHBOARD_ORIGINS,
    clientAddress: (req) => clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for']?.toString(), proxies),
    publicRpcUrl: config.PUBLIC_RPC_URL,
    publicOrigin: config.PUBLIC_ORIGIN,
    logger: logger.child({ component: 'dashboard' }),
  });
  return {
    access: control.access,
    dashboard,
    publicRpcUrl: config.PUBLIC_RPC_URL,
    webRoot: config.WEB_ROOT === '' ? resolve(__dirname, '../../../apps/web/dist') : config.WEB_ROOT,
    labJobs: new InFlight(config.LAB_JOBS_PER_KEY),
    streams: control.streams,
    dumps: {
      rounds: dumps,
      registry: control.dumps,
      maxConcurrent: config.DUMP_POOL_SIZE,
      idleTimeoutMs: config.DUMP_IDLE_TIMEOUT_S * 1000,
      minBytesPerSecond: config.DUMP_MIN_RATE_KIB_S * 1024,
      maxDurationMs: config.DUMP_MAX_DURATION_S * 1000,
    },
    rounds: new RoundRepository(pool),
    ...clients,
    events: events.repository,
    live,
    miners,
    minerClaims: minerClaims(platform, config),
    logger,
    metrics,
    readiness: platform.readiness,
    trustedProxies: proxies,
  };
}

/** A Miner account read per wallet summary (cached), over SOLANA_RPC_URL; none without it. */
function minerClaims(platform: Platform, config: GatewayConfig): MinerClaimsReader {
  if (config.SOLANA_RPC_URL === '') return NO_MINER_CLAIMS;
  // A summary does not wait long for the chain, nor through a provider's rate limiting: claimable is null then.
  const rpc = platform.own('solana rpc', new SolanaRpc(config.SOLANA_RPC_URL, { timeoutMs: 2_000, rateLimitedRetries: 0 }), (r) => r.close());
  return new RpcMinerClaims(rpc, new OrePdas(config.ORE_PROGRAM_ID), platform.logger.child({ component: 'miner-claims' }));
}

/** Every wallet's ledger: the indexer's miner tables (rollups, packed blocks, recent rows). */
export function minerLedger(platform: Platform): MinerLedgerReads {
  return new MinerLedgerStore(platform.pool);
}

/** The notifier's firings, which the gateway may read (alerts schema, SELECT on firings only). */
export function firingLog(platform: Platform): FiringLog {
  return new FiringLog(platform.pool);
}
