/**
 * The lab-backtest service process: keeps the whole round history in memory (loaded from
 * PostgreSQL in bulk, extended as rounds settle), answers backtest and analytics
 * commands over NATS as one of the `lab-backtest` queue group's replicas, computes them
 * on worker threads that share the history, and caches analytics in Redis. What it owns,
 * in the order it starts them (each step is in ./wiring.ts):
 */
import { runService } from '@gridlab/platform';
import { loadServiceConfig } from './config';
import { connectRedis, followSettledRounds, serveLabCommands, startWorkers } from './wiring';

runService('lab-backtest', async (start) => {
  const config = loadServiceConfig(process.env);
  // The ops port, PostgreSQL and NATS; ready once the history is loaded.
  const platform = await start(config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    poolSize: 2,
    // The analytics cache is only a cache: degraded without Redis, still ready.
    optionalChecks: ['redis'],
    pendingChecks: { redis: 'not connected yet', history: 'the round history is still loading' },
  });
  // The analytics cache.
  const redis = connectRedis(platform, config);
  // The whole round history in memory, and the worker threads that share it.
  const workers = await startWorkers(platform, config);
  // New rounds as they settle.
  followSettledRounds(platform, config, workers.history);
  // Last, the backtest and analytics commands.
  serveLabCommands(platform, config, redis, workers);
  platform.logger.info('lab-backtest ready', { rounds: workers.history.current.length, lastRoundId: workers.history.current.lastId, workers: workers.size });
});
