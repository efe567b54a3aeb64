/**
 * The API gateway process: the HTTP API over the read models, the live snapshots and the
 * keys. What it owns, in the order it starts them (each step is in ./wiring.ts):
 */
import { runService } from '@gridlab/platform';
import { loadGatewayConfig } from './config';
import { LiveCache } from './adapters/nats/live-feed';
import { parseSessionSecrets } from './domain/session';
import { connectRedis, controlAccess, closeRevokedStreams, dumpPool, firingLog, followEvents, followLiveSnapshots, minerLedger, natsClients, platformOptions, serveHttp } from './wiring';

runService('api-gateway', async (start) => {
  const config = loadGatewayConfig(process.env);
  // A malformed SESSION_SECRET stops the process before anything is connected.
  const sessionKeys = parseSessionSecrets(config.SESSION_SECRET);
  const live = new LiveCache(config.LIVE_STALE_AFTER_S);
  // The ops port (health, readiness, metrics), PostgreSQL and NATS.
  const platform = await start(config, platformOptions(config, live));
  // Redis: key cache, buckets, sharing tracker, tombstones (the gateway works on without it).
  const redis = await connectRedis(platform, config);
  // A small pool of its own for NDJSON dumps, so they never hold the connections key lookups need.
  const dumps = dumpPool(platform, config);
  // Request/reply clients of billing, the Lab's backtests and its strategies.
  const clients = natsClients(platform, config);
  // The request path (keys, sessions, rate limits) and the caps on streams and dumps.
  const access = controlAccess(platform, config, redis, clients.billing, live);
  // Revoked keys, signed-out sessions and lapsed subscriptions end their open streams on every replica.
  closeRevokedStreams(platform, config, redis, access);
  // The event log: read from PostgreSQL, new events pushed by event-log over NATS.
  const events = await followEvents(platform, config);
  // The live snapshots the indexer publishes.
  await followLiveSnapshots(platform, config, live);
  // Every wallet's ledger, read from the indexer's miner tables.
  const miners = minerLedger(platform);
  // The notifier's firings, which resumed alert streams replay.
  const firings = firingLog(platform);
  // Last, the HTTP API itself (and the miner and alert feeds its streams follow).
  await serveHttp(platform, config, { access, clients, live, events, dumps, sessionKeys, miners, firings });
});
