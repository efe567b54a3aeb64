/**
 * The lab-forward service process. For now it connects to its dependencies and serves its
 * operations endpoints; its business logic arrives with its own issue.
 */
import { connectBus } from '@gridlab/bus';
import { createPool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { createMetrics, natsCheck, onShutdown, postgresCheck, startOpsServer } from '@gridlab/runtime';
import { loadServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadServiceConfig(process.env);
  const logger = createLogger({ service: 'lab-forward', level: config.LOG_LEVEL });
  const metrics = createMetrics('lab-forward');
  const pool = createPool(config.DATABASE_URL, { max: 2, applicationName: 'lab-forward' });
  const nc = await connectBus({ servers: config.NATS_URL, name: 'lab-forward', logger });
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
  process.stderr.write(`lab-forward: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
