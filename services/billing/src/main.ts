/**
 * The billing service process. It owns the `billing` schema (subscribers and API key
 * hashes), which it migrates at start; the payment and key flows arrive with the
 * billing issue.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { connectBus } from '@gridlab/bus';
import { createPool, runMigrations } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { createMetrics, natsCheck, onShutdown, postgresCheck, startOpsServer } from '@gridlab/runtime';
import { loadServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadServiceConfig(process.env);
  const logger = createLogger({ service: 'billing', level: config.LOG_LEVEL });
  const metrics = createMetrics('billing');
  await runMigrations({ databaseUrl: config.DATABASE_URL, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR, logger });
  const pool = createPool(config.DATABASE_URL, { max: 4, applicationName: 'billing' });
  const nc = await connectBus({ servers: config.NATS_URL, name: 'billing', logger });
  const ops = await startOpsServer({
    host: config.OPS_HOST,
    port: config.OPS_PORT,
    logger,
    metrics,
    checks: { postgres: postgresCheck(pool), nats: natsCheck(nc) },
  });
  onShutdown(logger, [
    { name: 'ops server', run: () => ops.close() },
    { name: 'nats', run: () => nc.drain() },
    { name: 'postgres', run: () => pool.end() },
  ]);
}

main().catch((error: unknown) => {
  process.stderr.write(`billing: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
