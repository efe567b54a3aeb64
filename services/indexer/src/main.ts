/** The indexer process: chain → PostgreSQL + NATS (see docs/architecture.md). */
import { runService } from '@gridlab/platform';
import { createIndexer, INDEXER_PLATFORM, type IndexerSettings } from './indexer';
import { loadIndexerConfig, type IndexerConfig } from './config';

runService('indexer', async (start) => {
  const config = loadIndexerConfig(process.env);
  // Created first: the ops server reports its checks from the start.
  const indexer = createIndexer(indexerSettings(config));
  const platform = await start(config, { ...INDEXER_PLATFORM, ops: { host: config.OPS_HOST, port: config.OPS_PORT }, checks: indexer.checks });
  platform.own('indexer', indexer, (i) => i.stop());
  await indexer.start(platform);
});

function indexerSettings(config: IndexerConfig): IndexerSettings {
  return {
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
    minerLedger: config.MINER_LEDGER,
  };
}
