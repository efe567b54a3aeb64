/**
 * The API gateway process. For now it serves /healthz, /readyz and /metrics on the API
 * port with real dependency checks; the HTTP API arrives with the gateway issue.
 */
import { startPlatform } from '@gridlab/platform';
import { redisCheck } from '@gridlab/runtime';
import { Redis } from 'ioredis';
import { loadGatewayConfig } from './config';

async function main(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  const { logger } = await startPlatform('api-gateway', config, {
    ops: { host: config.HOST, port: config.PORT },
    checks: { redis: redisCheck(redis) },
    stopFirst: [{ name: 'redis', run: () => redis.quit().then(() => undefined) }],
  });
  redis.on('error', (error: unknown) => logger.warn('redis error', { err: error }));
  await redis.connect().catch((error: unknown) => logger.warn('redis not reachable at start', { err: error }));
}

main().catch((error: unknown) => {
  process.stderr.write(`api-gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
