/** The indexer process: chain → PostgreSQL + NATS (see docs/architecture.md). */
import { startPlatform } from '@gridlab/platform';
import { createIndexer, INDEXER_PLATFORM } from './indexer';
import { loadIndexerConfig } from './config';

async function main(): Promise<void> {
  const config = loadIndexerConfig(process.env);
  const indexer = createIndexer({
    databaseUrl: config.DATABASE_URL,
    natsUrl: config.NATS_URL,
    natsPrefix: config.NATS_PREFIX,
    rpcUrl: config.SOLANA_RPC_URL,
    wsUrl: config.SOLANA_WS_URL,
    programId: config.ORE_PROGRAM_ID,
    pollIntervalMs: config.POLL_INTERVAL_MS,
    slotSeconds: config.SLOT_SECONDS,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    rpc: { limits: config.RPC_LIMITS, batchMax: config.RPC_BATCH_MAX, concurrency: config.RPC_CONCURRENCY },
    ...(config.HISTORY_FILL ? { history: { fromRound: config.HISTORY_FROM_ROUND, concurrency: config.HISTORY_CONCURRENCY } } : {}),
    wsPingMs: config.WS_PING_MS,
    evStakeLamports: config.LIVE_EV_STAKE_LAMPORTS,
  });
  const platform = await startPlatform('indexer', config, {
    ...INDEXER_PLATFORM,
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    checks: indexer.checks,
    stopFirst: [{ name: 'indexer', run: () => indexer.stop() }],
  });
  await indexer.start(platform);
}

main().catch((error: unknown) => {
  process.stderr.write(`indexer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
