/** The devnet as a process: `pnpm devnet` (settings from DEVNET_* environment variables). */
import { createLogger } from '@gridlab/logger';
import { loadDevnetConfig } from './config';
import { startDevnet } from './devnet';

async function main(): Promise<void> {
  const config = loadDevnetConfig(process.env);
  const logger = createLogger({ service: 'devnet', level: config.LOG_LEVEL });
  const devnet = await startDevnet({
    host: config.DEVNET_HOST,
    rpcPort: config.DEVNET_RPC_PORT,
    wsPort: config.DEVNET_WS_PORT,
    slotMs: config.DEVNET_SLOT_MS,
    roundSlots: config.DEVNET_ROUND_SLOTS,
    intermissionSlots: config.DEVNET_INTERMISSION_SLOTS,
    seed: config.DEVNET_SEED,
    historyRounds: config.DEVNET_HISTORY_ROUNDS,
    voidedRoundRate: config.DEVNET_VOIDED_ROUND_RATE,
    deploysPerRound: config.DEVNET_DEPLOYS_PER_ROUND,
    eras: config.DEVNET_ERA,
    liveProgram: config.DEVNET_LIVE_PROGRAM,
    programId: config.ORE_PROGRAM_ID,
    tokenMint: config.ORE_TOKEN_MINT,
    ...(config.DEVNET_LEDGER_DIR === '' ? {} : { ledgerDir: config.DEVNET_LEDGER_DIR }),
    saveIntervalMs: config.DEVNET_SAVE_INTERVAL_MS,
    roundExpirySlots: config.DEVNET_ROUND_EXPIRY_SLOTS,
    rpcLimits: config.DEVNET_RPC_LIMITS,
    wsIdleS: config.DEVNET_WS_IDLE_S,
    logger,
  });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('devnet stopping', { signal });
    devnet.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('devnet stop failed', { err: error });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`devnet: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
