/**
 * The billing service process: answers pricing, subscribe and reissue commands over
 * NATS (queue group `billing`), verifies payments on chain, owns the `billing` schema,
 * announces expiries and tier crossings, and publishes subscription facts from its
 * outbox. What it owns, in the order it starts them (each step is in ./wiring.ts):
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { ensureBillingStream } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { runService } from '@gridlab/platform';
import { loadServiceConfig } from './config';
import { connectRedis, createBilling, runSchedules, serveBillingCommands } from './wiring';

runService('billing', async (start) => {
  const config = loadServiceConfig(process.env);
  // The ops port, PostgreSQL (the `billing` schema migrated) and NATS.
  const platform = await start(config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    migrate: { schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR },
    // Revocation tombstones are retried from the outbox: degraded without Redis, still ready.
    optionalChecks: ['redis'],
    pendingChecks: { redis: 'not connected yet' },
  });
  // The Redis every gateway reads revocation tombstones from.
  const redis = connectRedis(platform, config);
  // The BILLING stream its facts are published on.
  await ensureBillingStream(platform.nc, natsNames(config.NATS_PREFIX), { replicas: config.NATS_STREAM_REPLICAS });
  // Its use cases on the store and the chain, and what follows a commit.
  const parts = createBilling(platform, config, redis);
  // The commands the NATS table gives billing.
  serveBillingCommands(platform, config, parts.billing);
  // Expiry sweep, fact and revocation relays, nonce cleanup.
  runSchedules(platform, config, parts);
  // Facts a previous run committed but did not publish go out now.
  await parts.facts.relay().catch((error: unknown) => platform.logger.warn('initial fact relay failed', { err: error }));
  platform.logger.info('billing ready', { treasury: config.TREASURY_ADDRESS, tokenMint: config.TOKEN_MINT, rpc: config.SOLANA_RPC_URL });
});
