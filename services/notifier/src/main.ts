/**
 * The notifier service process: alert rules applied to what happens in the game (live
 * snapshots, deploys, settled rounds, miner rows, the event log's events, from NATS), and
 * what fires delivered to its owner's webhook, signed (Standard Webhooks 1.0), retried for
 * a day. Every replica evaluates every input (a firing is stored once, by its dedup key)
 * and delivers its share of the queue (each delivery taken by one replica at a time).
 * What it owns, in the order it starts them (each step is in ./wiring.ts):
 */
import { ALERTS_MIGRATIONS_DIR, ALERTS_SCHEMA } from '@gridlab/alerts-store';
import { runService } from '@gridlab/platform';
import { notifierMetrics } from './adapters/metrics';
import { loadServiceConfig } from './config';
import { serveAlertCommands, startDispatcher, startEngine } from './wiring';

runService('notifier', async (start) => {
  const config = loadServiceConfig(process.env);
  // The ops port, PostgreSQL (the `alerts` schema migrated) and NATS.
  const platform = await start(config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    migrate: { schema: ALERTS_SCHEMA, dir: ALERTS_MIGRATIONS_DIR },
    poolSize: 6,
    // Ready once it answers the owners' commands and follows the inputs, not merely once connected.
    pendingChecks: { commands: 'not answering alert commands yet', rules: 'the alert rules are not read yet' },
  });
  const metrics = notifierMetrics(platform.metrics);
  // Deliveries: the queue's due firings posted, retried on the schedule.
  const dispatcher = startDispatcher(platform, config, metrics);
  // The owners' commands: rules, secrets, test pings, the delivery log.
  serveAlertCommands(platform, config, dispatcher);
  platform.check('commands', () => Promise.resolve());
  // The rules, applied to every input; what fires goes to the queue and wakes the dispatcher.
  const engine = await startEngine(platform, config, metrics, dispatcher);
  platform.check('rules', () => Promise.resolve());
  platform.logger.info('notifier running', { rules: (await engine.refresh()) ?? 'unchanged' });
});
