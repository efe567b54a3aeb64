/** The lab-backtest service's parts, built and owned by the platform in the order main.ts lists them. */
import { availableParallelism } from 'node:os';
import { decodeEvent, stopServing } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import type { Platform } from '@gridlab/platform';
import { redisCheck, retryUntilDone } from '@gridlab/runtime';
import { bigRoundRuleTag, type BigRoundRule } from '@gridlab/strategy';
import { Redis } from 'ioredis';
import { labMetrics } from './adapters/metrics';
import { serveLab } from './adapters/nats/lab-commands';
import { RoundColumns } from './adapters/pg/round-columns';
import { AnalyticsCache } from './adapters/redis/analytics-cache';
import { ComputePool } from './adapters/workers/compute-pool';
import { HistorySync } from './app/history-sync';
import { Lab } from './app/lab';
import type { ServiceConfig } from './config';

/** The history in memory, the worker threads computing over it, and the metrics of both. */
export interface Workers {
  readonly history: HistorySync;
  readonly compute: ComputePool;
  readonly size: number;
  readonly counters: ReturnType<typeof labMetrics>;
}

function bigRoundRule(config: ServiceConfig): BigRoundRule {
  return { multiplier: config.EVENT_BIG_ROUND_MULTIPLIER, window: config.EVENT_BIG_ROUND_WINDOW, minHistory: config.EVENT_BIG_ROUND_MIN_HISTORY };
}

/** The analytics cache's Redis, which the service fails soft without. */
export function connectRedis(platform: Platform, config: ServiceConfig): Redis {
  const redis = platform.own('redis', new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 500 }), (r) => r.disconnect());
  redis.on('error', (error) => platform.logger.debug('redis error', { err: error }));
  platform.check('redis', redisCheck(redis));
  return redis;
}

/** Loads the whole round history, then starts the worker threads that share it. */
export async function startWorkers(platform: Platform, config: ServiceConfig): Promise<Workers> {
  const { logger } = platform;
  // The three refer to each other; none calls another before the history is loaded.
  const counters = labMetrics(platform.metrics, { pendingJobs: () => compute.depth, workers: () => compute.alive });
  const history = new HistorySync(
    new RoundColumns(platform.pool),
    {
      buffers: (buffers) => compute.setBuffers(buffers),
      extended: (length, lastId) => {
        counters.historyRounds.set(length);
        if (lastId !== null) counters.historyLastRound.set(lastId);
      },
    },
    logger.child({ component: 'history' }),
  );
  const size = config.LAB_WORKERS === 0 ? availableParallelism() : config.LAB_WORKERS;
  const compute = new ComputePool(
    {
      size,
      maxQueue: config.LAB_MAX_QUEUE,
      queueWaitMs: config.LAB_QUEUE_WAIT_MS,
      bigRoundRule: bigRoundRule(config),
      history: () => ({ buffers: history.current.buffersNow, length: history.current.length }),
      observe: (kind, outcome, seconds) => counters.jobSeconds.observe({ kind, outcome }, seconds),
      abandoned: (kind, where) => counters.abandoned.inc({ kind, where }),
    },
    logger.child({ component: 'workers' }),
  );
  // The rounds table belongs to the indexer, which may still be creating it.
  const loaded = await retryUntilDone('loading the round history', () => history.load(), { logger, signal: platform.signal });
  counters.historyLoadSeconds.set(loaded.ms / 1000);
  logger.info('history loaded', { rounds: loaded.rounds, ms: Math.round(loaded.ms) });
  compute.start();
  platform.own('workers', compute, (pool) => pool.stop());
  platform.check('history', () => (compute.alive === 0 ? Promise.reject(new Error('no worker thread is running')) : Promise.resolve()));
  return { history, compute, size, counters };
}

/**
 * Keeps the history up to date. A settled round is a wake-up call: the rounds themselves
 * are read from PostgreSQL, so every replica (a plain subscription, not a shared
 * consumer) sees every round and a message lost on the way is caught up by the timer.
 */
export function followSettledRounds(platform: Platform, config: ServiceConfig, history: HistorySync): void {
  const { logger } = platform;
  const catchUp = (): void => {
    history.catchUp().catch((error: unknown) => logger.warn('history catch-up failed; retrying on the next tick', { err: error }));
  };
  const settled = platform.nc.subscribe(natsNames(config.NATS_PREFIX).subjects.roundSettled, {
    callback: (error, msg) => {
      if (error !== null) {
        logger.warn('settled-round subscription failed', { err: error });
        return;
      }
      try {
        const round = decodeEvent('roundSettled', msg.data);
        const lastId = history.current.lastId;
        if (lastId === null || round.id > lastId) catchUp();
      } catch (e) {
        logger.warn('ignored a settled-round message that breaks its contract', { err: e });
      }
    },
  });
  platform.own('settled rounds', settled, (subscription) => subscription.unsubscribe());
  platform.own('catch-up timer', setInterval(catchUp, config.CATCH_UP_INTERVAL_MS), clearInterval);
  catchUp();
}

/** Backtest and analytics commands, analytics cached in Redis. */
export function serveLabCommands(platform: Platform, config: ServiceConfig, redis: Redis, workers: Workers): void {
  const { logger } = platform;
  const { history, compute, size, counters } = workers;
  // Analytics of a filter on big rounds depend on the rule: another rule caches under other keys.
  const cache = new AnalyticsCache(redis, `${config.REDIS_PREFIX}${bigRoundRuleTag(bigRoundRule(config))}`, config.ANALYTICS_CACHE_TTL_S, logger.child({ component: 'cache' }));
  // An analytics call in one share per worker: on an idle service it takes them all.
  const lab = new Lab(() => history.current.history, compute, cache, size);
  const subscriptions = serveLab(platform.nc, natsNames(config.NATS_PREFIX), lab, logger, {
    answered: (kind, outcome, cached) => counters.requests.inc({ kind, outcome, cache: kind === 'analytics' && outcome === 'ok' ? (cached ? 'hit' : 'miss') : 'none' }),
  });
  platform.own('commands', subscriptions, stopServing);
}
