/** The indexer process: chain → PostgreSQL + NATS (see docs/architecture.md). */
import { createLogger } from '@gridlab/logger';
import { createMetrics, onShutdown, startOpsServer } from '@gridlab/runtime';
import { startIndexer } from './indexer';
import { loadIndexerConfig } from './config';

async function main(): Promise<void> {
  const config = loadIndexerConfig(process.env);
  const logger = createLogger({ service: 'indexer', level: config.LOG_LEVEL });
  const metrics = createMetrics('indexer');
  const indexer = await startIndexer(
    {
      databaseUrl: config.DATABASE_URL,
      natsUrl: config.NATS_URL,
      natsPrefix: config.NATS_PREFIX,
      rpcUrl: config.SOLANA_RPC_URL,
      wsUrl: config.SOLANA_WS_URL,
      programId: config.ORE_PROGRAM_ID,
      pollIntervalMs: config.POLL_INTERVAL_MS,
      slotSeconds: config.SLOT_SECONDS,
    },
    { logger, metrics },
  );
  const ops = await startOpsServer({ host: config.OPS_HOST, port: config.OPS_PORT, logger, metrics, checks: indexer.checks });
  onShutdown(logger, [
    { name: 'ops server', run: () => ops.close() },
    { name: 'indexer', run: () => indexer.stop() },
  ]);
}

main().catch((error: unknown) => {
  process.stderr.write(`indexer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
