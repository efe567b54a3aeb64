/** The lab-forward service's parts, built and owned by the platform in the order main.ts lists them. */
import { randomInt } from 'node:crypto';
import { encodeEvent, ensureRoundsStream, serveDeclared, stopServing } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { ForwardStore, type StrategyStore } from '@gridlab/lab-store';
import type { Platform, SingleWriterOptions } from '@gridlab/platform';
import { ContiguousReader, HistoryStore, RoundRepository } from '@gridlab/rounds-store';
import { repeatEvery, retryUntilDone } from '@gridlab/runtime';
import { forwardMetrics } from './adapters/metrics';
import { strategyHandlers } from './adapters/nats/strategy-handlers';
import { ForwardWriter } from './app/forward-writer';
import type { StoredRounds, WriterEvents } from './app/ports';
import { StrategyCommands } from './app/strategy-commands';
import type { ServiceConfig } from './config';
import { newStrategyId } from './domain/records';

const DAY_MS = 86_400_000;

/** Strategy CRUD, forward stats and the leaderboard, on every replica. */
export function serveStrategyCommands(platform: Platform, config: ServiceConfig, records: StrategyStore): void {
  const names = natsNames(config.NATS_PREFIX);
  const commands = new StrategyCommands({ records, now: () => new Date(), newId: () => newStrategyId((max) => randomInt(max)) }, config.LAB_MIN_ROUNDS_TO_QUALIFY);
  platform.own('commands', serveDeclared(platform.nc, names, 'lab-forward', strategyHandlers(commands), platform.logger), stopServing);
}

/** Every replica purges (an idempotent delete): deleted strategies past their restore window go for good. */
export function purgeDeletedStrategies(platform: Platform, config: ServiceConfig, records: StrategyStore): void {
  const { logger } = platform;
  const purge = async (): Promise<void> => {
    const purged = await records.purgeDeleted(new Date(Date.now() - config.LAB_DELETED_RETENTION_DAYS * DAY_MS));
    if (purged > 0) logger.info('deleted strategies purged', { purged, retentionDays: config.LAB_DELETED_RETENTION_DAYS });
  };
  platform.own('deleted strategy purge', repeatEvery(config.LAB_PURGE_INTERVAL_MS, 'deleted strategy purge', purge, logger), (stop) => stop());
}

/** The forward writer: woken when a round settles or opens. */
export function forwardWriter(platform: Platform, config: ServiceConfig, events: WriterEvents): SingleWriterOptions<ForwardWriter> {
  const names = natsNames(config.NATS_PREFIX);
  return {
    databaseUrl: config.DATABASE_URL,
    lock: `${config.NATS_PREFIX}lab-forward-writer`,
    start: () => startWriter(platform, config, events),
    ensureStreams: () => ensureRoundsStream(platform.nc, names, { replicas: config.NATS_STREAM_REPLICAS }),
    wakeUps: [
      { stream: names.streams.rounds, durable: names.durables.labForwardSettled, subject: names.subjects.roundSettled },
      { stream: names.streams.rounds, durable: names.durables.labForwardOpened, subject: names.subjects.roundOpened },
    ],
    catchUpMs: config.CATCH_UP_INTERVAL_MS,
  };
}

/** The forward writer with its committed position and the round history up to it loaded. */
async function startWriter(platform: Platform, config: ServiceConfig, events: WriterEvents): Promise<ForwardWriter> {
  const { logger, pool, signal } = platform;
  const writer = new ForwardWriter(new ForwardStore(pool), storedRounds(platform, config), events, logger, {
    minRoundsToQualify: config.LAB_MIN_ROUNDS_TO_QUALIFY,
    leaderboardSize: config.LAB_LEADERBOARD_SIZE,
    bigRoundRule: { multiplier: config.EVENT_BIG_ROUND_MULTIPLIER, window: config.EVENT_BIG_ROUND_WINDOW, minHistory: config.EVENT_BIG_ROUND_MIN_HISTORY },
    // The writer stops between two transactions once shutdown begins.
    signal,
  });
  // The indexer creates the rounds schema; on a fresh deployment it may not exist yet.
  await retryUntilDone('loading the round history', () => writer.load(), { logger, signal });
  return writer;
}

/** The indexer's rounds; settlement takes them without a hole. */
function storedRounds(platform: Platform, config: ServiceConfig): StoredRounds {
  const repo = new RoundRepository(platform.pool);
  const contiguous = new ContiguousReader((fromId, limit) => repo.getRounds({ fromId, limit }), {
    waitMs: config.GAP_WAIT_MS,
    onSkip: (ids) => platform.logger.warn('round ids missing from the store; settling past them', ids),
    fill: new HistoryStore(platform.pool),
  });
  return {
    getRounds: (range) => repo.getRounds(range),
    latestId: () => repo.latestId(),
    contiguousAfter: (last, limit) => contiguous.after(last, limit),
  };
}

/** Settlement and recording times, the watermark and the sessions settled, as metrics and debug lines. */
export function observeWriter(platform: Platform, config: ServiceConfig): WriterEvents {
  const { logger, nc } = platform;
  const names = natsNames(config.NATS_PREFIX);
  const counters = forwardMetrics(platform.metrics);
  return {
    settled: (roundId, strategies, ms) => {
      counters.settleSeconds.observe(ms / 1000);
      counters.watermark.set(roundId);
      counters.sessions.set(strategies);
      logger.debug('round settled', { roundId, strategies, ms: Math.round(ms) });
    },
    recorded: (roundId, decisions, ms) => {
      counters.recordSeconds.observe(ms / 1000);
      logger.debug('predictions recorded', { roundId, predictions: decisions.length, ms: Math.round(ms) });
      // After commit: what strategy_signal alert rules fire on (the notifier).
      for (const { strategyId, decision } of decisions) {
        const { bet, reason, squares, stakesLamports } = decision;
        nc.publish(names.subjects.forwardDecided, encodeEvent('forwardDecided', { strategyId, roundId, decision: { bet, reason, squares: [...squares], stakesLamports: [...stakesLamports] } }));
      }
    },
  };
}
