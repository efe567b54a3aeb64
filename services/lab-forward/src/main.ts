/**
 * The lab-forward service process: strategy records, forward stats and the leaderboard
 * over NATS commands (every replica, queue group `lab-forward`), and the single forward
 * writer (a PostgreSQL leader lock; a second replica stands by) that records predictions
 * when a round opens and settles them when it settles, woken by durable JetStream
 * consumers and a catch-up timer.
 */
import { randomInt } from 'node:crypto';
import { consumeDurable, ensureRoundsStream, serveCommands } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { ForwardStore, LAB_MIGRATIONS_DIR, LAB_SCHEMA, StrategyStore } from '@gridlab/lab-store';
import { holdWriterLock, startPlatform } from '@gridlab/platform';
import { consumerMetrics, repeatEvery, retryUntilDone } from '@gridlab/runtime';
import { HistoryStore, RoundRepository } from '@gridlab/rounds-store';
import { forwardMetrics } from './adapters/metrics';
import { strategyRoutes } from './adapters/nats/strategy-routes';
import { ForwardWriter } from './app/forward-writer';
import { StrategyCommands } from './app/strategy-commands';
import { loadServiceConfig } from './config';
import { newStrategyId } from './domain/records';

const DAY_MS = 86_400_000;

/** Aborted when shutdown begins: start-up steps still running then fail harmlessly. */
const abort = new AbortController();

async function main(): Promise<void> {
  const config = loadServiceConfig(process.env);
  const names = natsNames(config.NATS_PREFIX);
  const stops: (() => Promise<void>)[] = [];
  let timer: NodeJS.Timeout | undefined;
  let release: (() => Promise<void>) | undefined;
  let idle: (() => Promise<void>) | undefined;
  const platform = await startPlatform('lab-forward', config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    migrate: { schema: LAB_SCHEMA, dir: LAB_MIGRATIONS_DIR },
    poolSize: 6,
    stopFirst: [
      {
        name: 'writer',
        run: async () => {
          abort.abort();
          clearInterval(timer);
          await Promise.all(stops.map((stop) => stop().catch(() => undefined)));
          // The transaction in flight commits; the writer starts no other.
          await idle?.();
          await release?.();
        },
      },
    ],
  });
  const { logger, metrics, pool, nc } = platform;
  const delivered = consumerMetrics(metrics);

  const records = new StrategyStore(pool);
  const commands = new StrategyCommands({ records, now: () => new Date(), newId: () => newStrategyId((max) => randomInt(max)) }, config.LAB_MIN_ROUNDS_TO_QUALIFY);
  serveCommands(nc, names.queues.labForward, strategyRoutes(names, commands), logger);
  // Every replica purges (an idempotent delete): deleted strategies past their restore window go for good.
  const stopPurge = repeatEvery(config.LAB_PURGE_INTERVAL_MS, 'deleted strategy purge', async () => {
    const purged = await records.purgeDeleted(new Date(Date.now() - config.LAB_DELETED_RETENTION_DAYS * DAY_MS));
    if (purged > 0) logger.info('deleted strategies purged', { purged, retentionDays: config.LAB_DELETED_RETENTION_DAYS });
  }, logger);
  stops.push(async () => stopPurge());

  const counters = forwardMetrics(metrics);

  const lock = await holdWriterLock(config.DATABASE_URL, `${config.NATS_PREFIX}lab-forward-writer`, { logger, signal: abort.signal, metrics });
  if (lock === null) return;
  release = () => lock.release();

  const writer = new ForwardWriter(
    new ForwardStore(pool),
    new RoundRepository(pool),
    {
      settled: (roundId, strategies, ms) => {
        counters.settleSeconds.observe(ms / 1000);
        counters.watermark.set(roundId);
        counters.sessions.set(strategies);
        logger.debug('round settled', { roundId, strategies, ms: Math.round(ms) });
      },
      recorded: (roundId, predictions, ms) => {
        counters.recordSeconds.observe(ms / 1000);
        logger.debug('predictions recorded', { roundId, predictions, ms: Math.round(ms) });
      },
    },
    logger,
    {
      minRoundsToQualify: config.LAB_MIN_ROUNDS_TO_QUALIFY,
      leaderboardSize: config.LAB_LEADERBOARD_SIZE,
      gapWaitMs: config.GAP_WAIT_MS,
      fill: new HistoryStore(pool),
      bigRoundRule: { multiplier: config.EVENT_BIG_ROUND_MULTIPLIER, window: config.EVENT_BIG_ROUND_WINDOW, minHistory: config.EVENT_BIG_ROUND_MIN_HISTORY },
      signal: abort.signal,
    },
  );
  idle = () => writer.idle();
  // The indexer creates the rounds schema; on a fresh deployment it may not exist yet.
  await retryUntilDone('loading the round history', () => writer.load(), { logger, signal: abort.signal });
  const poke = (): Promise<void> => writer.poke().catch(() => undefined);
  await poke();

  await ensureRoundsStream(nc, names, { replicas: config.NATS_STREAM_REPLICAS });
  // A message is acked once the catch-up it triggered has committed past it.
  stops.push(
    await consumeDurable(nc, { stream: names.streams.rounds, durable: names.durables.labForwardSettled, subject: names.subjects.roundSettled, logger, onDelivery: delivered(names.durables.labForwardSettled) }, () =>
      writer.poke(),
    ),
    await consumeDurable(nc, { stream: names.streams.rounds, durable: names.durables.labForwardOpened, subject: names.subjects.roundOpened, logger, onDelivery: delivered(names.durables.labForwardOpened) }, () =>
      writer.poke(),
    ),
  );
  timer = setInterval(() => void poke(), config.CATCH_UP_INTERVAL_MS);
  logger.info('forward writer running', { settledThrough: writer.position });
}

main().catch((error: unknown) => {
  if (abort.signal.aborted) return;
  process.stderr.write(`lab-forward: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
