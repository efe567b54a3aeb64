/** The API gateway process: the HTTP API over the read models, snapshots and keys. */
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { KeyStore } from '@gridlab/billing-store';
import { encodeMessage } from '@gridlab/bus';
import { natsNames, validateKeyShared } from '@gridlab/contracts';
import { createPool } from '@gridlab/db';
import { startPlatform } from '@gridlab/platform';
import { EventRepository } from '@gridlab/events-store';
import { RoundRepository } from '@gridlab/rounds-store';
import { advisory, redisCheck } from '@gridlab/runtime';
import { Redis } from 'ioredis';
import { gatewayMetrics } from './adapters/metrics';
import { BillingClient } from './adapters/nats/billing-client';
import { LabClient } from './adapters/nats/lab-client';
import { StrategiesClient } from './adapters/nats/strategies-client';
import { EventFeed } from './adapters/nats/event-feed';
import { LiveCache, followLive } from './adapters/nats/live-feed';
import { RedisGate } from './adapters/redis/redis-gate';
import { RedisSiwsNonces } from './adapters/redis/siws-nonces';
import { followTombstones } from './adapters/redis/tombstones';
import { followRevocations, followSessionEnds } from './adapters/nats/revocations';
import { StreamRegistry } from './domain/stream-registry';
import { InFlight } from './domain/in-flight';
import { Authenticator } from './app/authenticate';
import { SessionGuard } from './app/session-guard';
import { keySharingResponder } from './app/key-sharing';
import { loadGatewayConfig } from './config';
import { MemoryLimiter } from './domain/memory-limiter';
import { parseSessionSecrets } from './domain/session';
import { IP_POLICY, KEY_POLICY } from './domain/token-bucket';
import { DEFAULT_LEASE_POLICY } from './domain/token-lease';
import { createApp } from './http/app';
import { createGatewayServer } from './http/server';
import { Dashboard } from './http/dashboard';
import { clientAddress, trustedProxies } from './http/client-address';
import { EventStream } from './http/event-stream';
import { SnapshotStream } from './http/sse';

const SHARING_WINDOW_MS = 5 * 60 * 1000;

async function main(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const sessionKeys = parseSessionSecrets(config.SESSION_SECRET);
  const redis = new Redis(config.REDIS_URL, {
    lazyConnect: true,
    commandTimeout: config.REDIS_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    enableAutoPipelining: true,
  });
  let server: Server | undefined;
  let stopLive: (() => void) | undefined;
  let stream: SnapshotStream | undefined;
  let eventStream: EventStream | undefined;
  let stopEvents: (() => void) | undefined;
  let stopRevocations: (() => void) | undefined;
  let stopDumpPool: (() => Promise<void>) | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  const live = new LiveCache(config.LIVE_STALE_AFTER_S);
  const platform = await startPlatform('api-gateway', config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    checks: {
      redis: redisCheck(redis),
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
    // Without Redis the gateway fails soft (PostgreSQL key lookups, in-process limits): degraded, still ready.
    optionalChecks: ['redis'],
    poolSize: 10,
    stopFirst: [
      {
        name: 'http',
        run: () =>
          new Promise<void>((resolve) => {
            if (server === undefined) return resolve();
            server.close(() => resolve());
            // Streams never end on their own: close idle and streaming connections now.
            server.closeIdleConnections();
            stream?.close();
            eventStream?.close();
          }),
      },
      { name: 'live feed', run: async () => stopLive?.() },
      { name: 'event feed', run: async () => stopEvents?.() },
      {
        name: 'revocations',
        run: async () => {
          stopRevocations?.();
          clearInterval(expiryTimer);
        },
      },
      { name: 'dump pool', run: async () => stopDumpPool?.() },
      { name: 'redis', run: () => redis.quit().then(() => undefined, () => undefined) },
    ],
  });
  const { logger, metrics, pool, nc } = platform;
  redis.on('error', (error: unknown) => logger.debug('redis error', { err: error }));
  await redis.connect().catch((error: unknown) => logger.warn('redis not reachable at start; using fallbacks', { err: error }));

  const counters = gatewayMetrics(metrics, { liveAgeSeconds: () => live.view()?.ageSeconds ?? null });
  const names = natsNames(config.NATS_PREFIX);
  const billing = new BillingClient(nc, names, config.COMMAND_TIMEOUT_MS);
  const lab = new LabClient(nc, names, config.LAB_TIMEOUT_MS);
  const strategies = new StrategiesClient(nc, names, config.COMMAND_TIMEOUT_MS);
  const eventRepo = new EventRepository(pool);
  const eventFeed = new EventFeed(eventRepo, logger.child({ component: 'events' }));
  stopEvents = await eventFeed.start(nc, names);
  stopLive = await followLive(nc, names, live, logger.child({ component: 'live' }), { replicas: config.NATS_STREAM_REPLICAS });
  const gate = new RedisGate(redis, {
    prefix: config.REDIS_PREFIX,
    keyPolicy: KEY_POLICY,
    sharingWindowMs: SHARING_WINDOW_MS,
    maxAddressesPerKey: config.KEY_SHARING_MAX_ADDRESSES,
    lease: config.RATE_LIMIT_LEASE_MS === 0 ? { ...DEFAULT_LEASE_POLICY, maxTokens: 0 } : { ...DEFAULT_LEASE_POLICY, ttlMs: config.RATE_LIMIT_LEASE_MS },
  });
  const fallbackLimiter = new MemoryLimiter();
  const keyStore = new KeyStore(pool, config.API_KEY_HMAC_SECRET);
  const authenticator = new Authenticator(
    gate,
    keyStore,
    fallbackLimiter,
    {
      redisFallback: (active) => counters.rateLimitFallback.set(active ? 1 : 0),
      keySharing: keySharingResponder(
        { policy: config.KEY_SHARING_POLICY, windowMs: SHARING_WINDOW_MS },
        {
          counted: () => counters.keySharingSignals.inc(),
          announce: (fact) => nc.publish(names.subjects.keyShared, encodeMessage(validateKeyShared, fact)),
          revoke: (keyHash) => billing.revokeKey(keyHash),
        },
        logger,
      ),
    },
    logger.child({ component: 'auth' }),
    Date.now,
    {
      failurePolicy: { capacity: config.AUTH_FAILURE_BURST, refillPerSecond: config.AUTH_FAILURES_PER_MINUTE / 60 },
      negativeTtlMs: config.NEGATIVE_KEY_CACHE_TTL_S * 1000,
      negativeMaxEntries: config.NEGATIVE_KEY_CACHE_SIZE,
      positiveTtlMs: config.POSITIVE_KEY_CACHE_TTL_S * 1000,
      positiveMaxEntries: config.POSITIVE_KEY_CACHE_SIZE,
    },
  );
  const streams = new StreamRegistry({ perKey: config.STREAMS_PER_KEY, perAddress: config.STREAMS_PER_ADDRESS });
  const dumps = new StreamRegistry({ perKey: config.DUMPS_PER_KEY, perAddress: config.DUMPS_PER_ADDRESS });
  const revoked = (keyHashHex: string): void => {
    authenticator.forget(keyHashHex);
    const closed = streams.revoke(keyHashHex) + dumps.revoke(keyHashHex);
    if (closed > 0) logger.info('closed the streams of a revoked key', { streams: closed });
  };
  // Two paths, so a revoked key ends at once on every replica: billing's fact on NATS, and
  // every revoker's tombstone announced in Redis (the CLI's too).
  const stopFacts = followRevocations(nc, names, revoked, logger.child({ component: 'revocations' }));
  const stopTombstones = followTombstones(redis, config.REDIS_PREFIX, revoked, logger.child({ component: 'revocations' }));
  const sessions = new SessionGuard(
    { current: (ids) => keyStore.sessionEpochs(ids), end: (subscriberId, epoch) => billing.endSessions(subscriberId, epoch) },
    (subscriberId, epoch) => {
      const closed = streams.endSessions(subscriberId, epoch) + dumps.endSessions(subscriberId, epoch);
      if (closed > 0) logger.info('closed the streams of signed-out dashboard sessions', { streams: closed, subscriberId });
    },
  );
  const stopSessionEnds = followSessionEnds(nc, names, (subscriberId, epoch) => sessions.ended(subscriberId, epoch), logger.child({ component: 'sessions' }));
  stopRevocations = () => {
    stopFacts();
    stopTombstones();
    stopSessionEnds();
  };
  expiryTimer = setInterval(() => {
    const closed = streams.closeExpired(Date.now()) + dumps.closeExpired(Date.now());
    if (closed > 0) logger.info('closed the streams of expired keys and sessions', { streams: closed });
    // A sign-out announcement this replica missed still ends the session's streams here.
    sessions.recheck([...new Set([...streams.sessionSubscribers(), ...dumps.sessionSubscribers()])]).catch((error: unknown) => logger.warn('session epochs not re-checked', { err: error }));
  }, config.STREAM_EXPIRY_CHECK_S * 1000);
  expiryTimer.unref();
  const dumpPool = createPool(config.DATABASE_URL, { max: config.DUMP_POOL_SIZE, applicationName: 'api-gateway-dump' });
  stopDumpPool = () => dumpPool.end();
  const proxies = trustedProxies(config.TRUSTED_PROXIES);
  const dashboard = new Dashboard({
    authenticator,
    wallets: keyStore,
    sessions,
    siwsNonces: new RedisSiwsNonces(redis, config.REDIS_PREFIX),
    keys: sessionKeys,
    sessionTtlMs: config.SESSION_TTL_S * 1000,
    allowedOrigins: config.DASHBOARD_ORIGINS,
    clientAddress: (req) => clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for']?.toString(), proxies),
    publicRpcUrl: config.PUBLIC_RPC_URL,
    publicOrigin: config.PUBLIC_ORIGIN,
    logger: logger.child({ component: 'dashboard' }),
  });
  const deps = {
    dashboard,
    publicRpcUrl: config.PUBLIC_RPC_URL,
    webRoot: config.WEB_ROOT === '' ? resolve(__dirname, '../../../apps/web/dist') : config.WEB_ROOT,
    labJobs: new InFlight(config.LAB_JOBS_PER_KEY),
    streams,
    dumps: {
      rounds: new RoundRepository(dumpPool),
      registry: dumps,
      maxConcurrent: config.DUMP_POOL_SIZE,
      idleTimeoutMs: config.DUMP_IDLE_TIMEOUT_S * 1000,
    },
    authenticator,
    limitAddress: (address: string) =>
      gate.takeForAddress(IP_POLICY, address).catch(() => fallbackLimiter.take(IP_POLICY, `ip:${address}`)),
    rounds: new RoundRepository(pool),
    billing,
    lab,
    strategies,
    events: eventRepo,
    live,
    logger,
    metrics,
    readiness: platform.readiness,
    trustedProxies: proxies,
  };
  stream = new SnapshotStream(live);
  eventStream = new EventStream(eventRepo, eventFeed);
  server = createGatewayServer(createApp(deps), deps, stream, eventStream);
  server.on('close', () => stream.close());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server!.listen(config.PORT, config.HOST, resolve));
  logger.info('gateway listening', { url: `http://${config.HOST}:${config.PORT}` });
}

main().catch((error: unknown) => {
  process.stderr.write(`api-gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
