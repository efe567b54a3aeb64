/**
 * The event-log service process: the single writer of the event log (a PostgreSQL
 * leader lock; a second replica stands by). It derives events from the stored rounds
 * and billing's facts, woken by durable JetStream consumers and a catch-up timer, and
 * publishes each appended event on NATS after commit. What it owns, in the order it
 * starts them (each step is in ./wiring.ts):
 */
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { runService, runSingleWriter } from '@gridlab/platform';
import { loadServiceConfig } from './config';
import { announce, eventWriter } from './wiring';

runService('event-log', async (start) => {
  const config = loadServiceConfig(process.env);
  // The ops port, PostgreSQL (the `events` schema migrated) and NATS.
  const platform = await start(config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    migrate: { schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR },
    poolSize: 4,
  });
  // Where appended events go: metrics, and NATS after commit.
  const events = announce(platform, config);
  // The writer, once this replica holds the leader lock (until then it stands by).
  if ((await runSingleWriter(platform, eventWriter(platform, config, events))) !== null) platform.logger.info('event log writer running');
});
