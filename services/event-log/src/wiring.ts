/** The event-log service's parts, built and owned by the platform in the order main.ts lists them. */
import { BillingFactsSource } from '@gridlab/billing-store';
import { encodeEvent, ensureBillingStream, ensureRoundsStream } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import type { Platform, SingleWriterOptions } from '@gridlab/platform';
import { ContiguousReader, HistoryStore, RoundRepository } from '@gridlab/rounds-store';
import { eventLogMetrics } from './adapters/metrics';
import { PgEventLog } from './adapters/pg/event-log';
import { EventWriter } from './app/event-writer';
import type { WriterEvents } from './app/ports';
import type { ServiceConfig } from './config';

/** The writer: woken by settled rounds and every billing fact, on the stored rounds and facts. */
export function eventWriter(platform: Platform, config: ServiceConfig, events: WriterEvents): SingleWriterOptions<EventWriter> {
  const names = natsNames(config.NATS_PREFIX);
  const streams = { replicas: config.NATS_STREAM_REPLICAS };
  return {
    databaseUrl: config.DATABASE_URL,
    lock: `${config.NATS_PREFIX}event-log-writer`,
    start: () => startWriter(platform, config, events),
    ensureStreams: async () => {
      await ensureRoundsStream(platform.nc, names, streams);
      await ensureBillingStream(platform.nc, names, streams);
    },
    wakeUps: [
      { stream: names.streams.rounds, durable: names.durables.eventLogRounds, subject: names.subjects.roundSettled },
      // Every subject of BILLING: subscription and tier facts.
      { stream: names.streams.billing, durable: names.durables.eventLogBilling },
    ],
    catchUpMs: config.CATCH_UP_INTERVAL_MS,
  };
}

/** The event writer with its committed state loaded. */
async function startWriter(platform: Platform, config: ServiceConfig, events: WriterEvents): Promise<EventWriter> {
  const { logger, pool } = platform;
  const repo = new RoundRepository(pool);
  const rounds = new ContiguousReader((fromId, limit) => repo.getOutcomes({ fromId, limit }), {
    waitMs: config.GAP_WAIT_MS,
    onSkip: (ids) => logger.warn('round ids missing from the store; deriving past them', ids),
    fill: new HistoryStore(pool),
  });
  const outcomes = { after: rounds.after.bind(rounds), countUpTo: repo.countUpTo.bind(repo), countsUpTo: repo.countsUpTo.bind(repo) };
  const writer = new EventWriter(new PgEventLog(pool), outcomes, new BillingFactsSource(pool), events, logger, {
    deriver: {
      droughtThreshold: config.EVENT_DROUGHT_THRESHOLD,
      bigRoundMultiplier: config.EVENT_BIG_ROUND_MULTIPLIER,
      bigRoundWindow: config.EVENT_BIG_ROUND_WINDOW,
      bigRoundMinHistory: config.EVENT_BIG_ROUND_MIN_HISTORY,
      streakMinLength: config.EVENT_STREAK_MIN_LENGTH,
      milestoneRoundModulus: config.EVENT_MILESTONE_ROUNDS,
      deployedSolStep: config.EVENT_MILESTONE_SOL,
    },
    checkpointEvery: config.EVENT_CHECKPOINT_ROUNDS,
  });
  await writer.load();
  return writer;
}

/** Each appended event counted and published on NATS (after commit); the watermark as a gauge. */
export function announce(platform: Platform, config: ServiceConfig): WriterEvents {
  const names = natsNames(config.NATS_PREFIX);
  const counters = eventLogMetrics(platform.metrics);
  return {
    appended: (events) => {
      for (const event of events) {
        counters.appended.inc({ kind: event.kind });
        platform.nc.publish(names.subjects.eventAppended, encodeEvent('eventAppended', event));
      }
    },
    progress: (roundId) => counters.watermark.set(roundId),
  };
}
