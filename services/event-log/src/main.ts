/**
 * The event-log service process: the single writer of the event log (a PostgreSQL
 * leader lock; a second replica stands by). It derives events from the stored rounds
 * and billing's facts, woken by durable JetStream consumers and a catch-up timer, and
 * publishes each appended event on NATS after commit.
 */
import { consumeDurable, encodeMessage, ensureBillingStream, ensureRoundsStream } from '@gridlab/bus';
import { natsNames, validateLogEvent } from '@gridlab/contracts';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA, EventRepository } from '@gridlab/events-store';
import { holdWriterLock, startPlatform } from '@gridlab/platform';
import { consumerMetrics } from '@gridlab/runtime';
import { HistoryStore, RoundRepository } from '@gridlab/rounds-store';
import { BillingFactsSource } from '@gridlab/billing-store';
import { eventLogMetrics } from './adapters/metrics';
import { EventWriter } from './app/event-writer';
import { loadServiceConfig } from './config';

/** Aborted when shutdown begins: start-up steps still running then fail harmlessly. */
const abort = new AbortController();

async function main(): Promise<void> {
  const config = loadServiceConfig(process.env);
  const names = natsNames(config.NATS_PREFIX);
  const stops: (() => Promise<void>)[] = [];
  let timer: NodeJS.Timeout | undefined;
  let release: (() => Promise<void>) | undefined;
  const platform = await startPlatform('event-log', config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    migrate: { schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR },
    poolSize: 4,
    stopFirst: [
      {
        name: 'writer',
        run: async () => {
          abort.abort();
          clearInterval(timer);
          await Promise.all(stops.map((stop) => stop().catch(() => undefined)));
          await release?.();
        },
      },
    ],
  });
  const { logger, metrics, pool, nc } = platform;
  const delivered = consumerMetrics(metrics);
  const counters = eventLogMetrics(metrics);

  const lock = await holdWriterLock(config.DATABASE_URL, `${config.NATS_PREFIX}event-log-writer`, { logger, signal: abort.signal, metrics });
  if (lock === null) return;
  release = () => lock.release();

  const writer = new EventWriter(
    pool,
    new EventRepository(pool),
    new RoundRepository(pool),
    new BillingFactsSource(pool),
    {
      appended: (events) => {
        for (const event of events) {
          counters.appended.inc({ kind: event.kind });
          nc.publish(names.subjects.eventAppended, encodeMessage(validateLogEvent, event));
        }
      },
      progress: (roundId) => counters.watermark.set(roundId),
    },
    logger,
    {
      gapWaitMs: config.GAP_WAIT_MS,
      fill: new HistoryStore(pool),
      deriver: {
        droughtThreshold: config.EVENT_DROUGHT_THRESHOLD,
        bigRoundMultiplier: config.EVENT_BIG_ROUND_MULTIPLIER,
        bigRoundWindow: config.EVENT_BIG_ROUND_WINDOW,
        bigRoundMinHistory: config.EVENT_BIG_ROUND_MIN_HISTORY,
        streakMinLength: config.EVENT_STREAK_MIN_LENGTH,
        milestoneRoundModulus: config.EVENT_MILESTONE_ROUNDS,
        deployedSolStep: config.EVENT_MILESTONE_SOL,
      },
    },
  );
  await writer.load();
  const poke = (): Promise<void> => writer.poke().catch(() => undefined);
  await poke();

  await ensureRoundsStream(nc, names, { replicas: config.NATS_STREAM_REPLICAS });
  await ensureBillingStream(nc, names, { replicas: config.NATS_STREAM_REPLICAS });
  // A message is acked once the catch-up it triggered has committed past it.
  stops.push(
    await consumeDurable(nc, { stream: names.streams.rounds, durable: names.durables.eventLogRounds, subject: names.subjects.roundSettled, logger, onDelivery: delivered(names.durables.eventLogRounds) }, () =>
      writer.poke(),
    ),
    await consumeDurable(
      nc,
      // Every subject of BILLING: subscription and tier facts.
      { stream: names.streams.billing, durable: names.durables.eventLogBilling, logger, onDelivery: delivered(names.durables.eventLogBilling) },
      () => writer.poke(),
    ),
  );
  timer = setInterval(() => void poke(), config.CATCH_UP_INTERVAL_MS);
  logger.info('event log writer running');
}

main().catch((error: unknown) => {
  // A start-up step interrupted by SIGTERM (its connections closed under it): the
  // shutdown in progress decides the exit.
  if (abort.signal.aborted) return;
  process.stderr.write(`event-log: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
