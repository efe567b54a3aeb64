/**
 * The lab-forward service process: strategy records, forward stats and the leaderboard
 * over NATS commands (every replica, queue group `lab-forward`), and the single forward
 * writer (a PostgreSQL leader lock; a second replica stands by) that records predictions
 * when a round opens and settles them when it settles, woken by durable JetStream
 * consumers and a catch-up timer. What it owns, in the order it starts them (each step
 * is in ./wiring.ts):
 */
import { LAB_MIGRATIONS_DIR, LAB_SCHEMA, StrategyStore } from '@gridlab/lab-store';
import { runService, runSingleWriter } from '@gridlab/platform';
import { loadServiceConfig } from './config';
import { forwardWriter, observeWriter, purgeDeletedStrategies, serveStrategyCommands } from './wiring';

runService('lab-forward', async (start) => {
  const config = loadServiceConfig(process.env);
  // The ops port, PostgreSQL (the `lab` schema migrated) and NATS.
  const platform = await start(config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    migrate: { schema: LAB_SCHEMA, dir: LAB_MIGRATIONS_DIR },
    poolSize: 6,
  });
  const records = new StrategyStore(platform.pool);
  // Strategy CRUD, forward stats and the leaderboard, on every replica.
  serveStrategyCommands(platform, config, records);
  // Deleted strategies past their restore window go for good.
  purgeDeletedStrategies(platform, config, records);
  // The writer's timings and watermark as metrics; each recorded decision on NATS.
  const events = observeWriter(platform, config);
  // The forward writer, once this replica holds the leader lock (until then it stands by).
  const writer = await runSingleWriter(platform, forwardWriter(platform, config, events));
  if (writer !== null) platform.logger.info('forward writer running', { settledThrough: writer.position });
});
