/**
 * The lab-backtest service process: keeps the whole round history in memory (loaded from
 * PostgreSQL in bulk, extended as rounds settle), answers backtest and analytics
 * commands over NATS as one of the `lab-backtest` queue group's replicas, computes them
 * on worker threads that share the history, and caches analytics in Redis.
 */
import { availableParallelism } from 'node:os';
import { decodeMessage, type Subscription } from '@gridlab/bus';
import { natsNames, validateRound } from '@gridlab/contracts';
import { startPlatform } from '@gridlab/platform';
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
import { loadServiceConfig } from './config';

/** Aborted when shutdown begins: start-up steps still running then fail harmlessly. */
const abort = new AbortController();

async function main(): Promise<void> {
  const config = loadServiceConfig(process.env);
  const bigRoundRule: BigRoundRule = { multiplier: config.EVENT_BIG_ROUND_MULTIPLIER, window: config.EVENT_BIG_ROUND_WINDOW, minHistory: config.EVENT_BIG_ROUND_MIN_HISTORY };
  const names = natsNames(config.NATS_PREFIX);
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 500 });
  const subscriptions: Subscription[] = [];
  let timer: NodeJS.Timeout | undefined;
  let compute: ComputePool | undefined;
  let sync: HistorySync | undefined;
  const platform = await startPlatform('lab-backtest', config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    poolSize: 2,
    // The analytics cache is only a cache: degraded without Redis, still ready.
    optionalChecks: ['redis'],
    checks: {
      redis: redisCheck(redis),
      history: async () => {
        if (sync?.loaded !== true) throw new Error('the round history is still loading');
        if (compute === undefined || compute.alive === 0) throw new Error('no worker thread is running');
      },
    },
    stopFirst: [
      { name: 'start-up', run: async () => abort.abort() },
      { name: 'commands', run: async () => subscriptions.forEach((s) => s.unsubscribe()) },
      { name: 'catch-up', run: async () => clearInterval(timer) },
      { name: 'workers', run: async () => compute?.stop() },
      { name: 'redis', run: async () => void redis.disconnect() },
    ],
  });
  const { logger, metrics, pool, nc } = platform;
  redis.on('error', (error) => logger.debug('redis error', { err: error }));

  const counters = labMetrics(metrics, { pendingJobs: () => compute?.depth ?? 0, workers: () => compute?.alive ?? 0 });

  const history = new HistorySync(
    new RoundColumns(pool),
    {
      buffers: (buffers) => compute?.setBuffers(buffers),
      extended: (length, lastId) => {
        counters.historyRounds.set(length);
        if (lastId !== null) counters.historyLastRound.set(lastId);
      },
    },
    logger.child({ component: 'history' }),
  );
  // The rounds table belongs to the indexer, which may still be creating it.
  const loaded = await retryUntilDone('loading the round history', () => history.load(), { logger, signal: abort.signal });
  counters.historyLoadSeconds.set(loaded.ms / 1000);
  logger.info('history loaded', { rounds: loaded.rounds, ms: Math.round(loaded.ms) });

  const workers = config.LAB_WORKERS === 0 ? availableParallelism() : config.LAB_WORKERS;
  compute = new ComputePool(
    {
      size: workers,
      maxQueue: config.LAB_MAX_QUEUE,
      queueWaitMs: config.LAB_QUEUE_WAIT_MS,
      bigRoundRule,
      history: () => ({ buffers: history.current.buffersNow, length: history.current.length }),
      observe: (kind, outcome, seconds) => counters.jobSeconds.observe({ kind, outcome }, seconds),
      abandoned: (kind, where) => counters.abandoned.inc({ kind, where }),
    },
    logger.child({ component: 'workers' }),
  );
  compute.start();
  sync = history;

  const catchUp = (): void => {
    history.catchUp().catch((error: unknown) => logger.warn('history catch-up failed; retrying on the next tick', { err: error }));
  };
  // A settled round is a wake-up call: the rounds themselves are read from PostgreSQL, so
  // every replica (a plain subscription, not a shared consumer) sees every round and a
  // message lost on the way is caught up by the timer.
  subscriptions.push(
    nc.subscribe(names.subjects.roundSettled, {
      callback: (error, msg) => {
        if (error !== null) {
          logger.warn('settled-round subscription failed', { err: error });
          return;
        }
        try {
          const round = decodeMessage(validateRound, msg.data);
          const lastId = history.current.lastId;
          if (lastId === null || round.id > lastId) catchUp();
        } catch (e) {
          logger.warn('ignored a settled-round message that breaks its contract', { err: e });
        }
      },
    }),
  );
  timer = setInterval(catchUp, config.CATCH_UP_INTERVAL_MS);

  // Analytics of a filter on big rounds depend on the rule: another rule caches under other keys.
  const cache = new AnalyticsCache(redis, `${config.REDIS_PREFIX}${bigRoundRuleTag(bigRoundRule)}`, config.ANALYTICS_CACHE_TTL_S, logger.child({ component: 'cache' }));
  // An analytics call in one share per worker: on an idle service it takes them all.
  const lab = new Lab(() => history.current.history, compute, cache, workers);
  subscriptions.push(
    ...serveLab(nc, names, lab, logger, {
      answered: (kind, outcome, cached, _seconds) => counters.requests.inc({ kind, outcome, cache: kind === 'analytics' && outcome === 'ok' ? (cached ? 'hit' : 'miss') : 'none' }),
    }),
  );
  catchUp();
  logger.info('lab-backtest ready', { rounds: history.current.length, lastRoundId: history.current.lastId, workers });
}

main().catch((error: unknown) => {
  if (abort.signal.aborted) return;
  process.stderr.write(`lab-backtest: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
