/**
 * The API gateway process. For now it serves /healthz, /readyz and /metrics on the API
 * port with real dependency checks; the HTTP API arrives with the gateway issue.
 */
import { connectBus } from '@gridlab/bus';
import { createPool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { createMetrics, natsCheck, onShutdown, postgresCheck, redisCheck, startOpsServer } from '@gridlab/runtime';
import { Redis } from 'ioredis';
import { loadGatewayConfig } from './config';

async function main(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ service: 'api-gateway', level: config.LOG_LEVEL });
  const metrics = createMetrics('api-gateway');
  const pool = createPool(config.DATABASE_URL, { max: 4, applicationName: 'api-gateway' });
  const nc = await connectBus({ servers: config.NATS_URL, name: 'api-gateway', logger });
  const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (error: unknown) => logger.warn('redis error', { err: error }));
  await redis.connect().catch((error: unknown) => logger.warn('redis not reachable at start', { err: error }));
  const ops = await startOpsServer({
    host: config.HOST,
    port: config.PORT,
    logger,
    metrics,
    checks: { postgres: postgresCheck(pool), nats: natsCheck(nc), redis: redisCheck(redis) },
  });
  onShutdown(logger, [
    { name: 'http', run: () => ops.close() },
    { name: 'nats', run: () => nc.drain() },
    { name: 'redis', run: () => redis.quit().then(() => undefined) },
    { name: 'postgres', run: () => pool.end() },
  ]);
}

main().catch((error: unknown) => {
  process.stderr.write(`api-gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
