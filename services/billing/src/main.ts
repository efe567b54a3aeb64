/**
 * The billing service process. It owns the `billing` schema (subscribers and API key
 * hashes), which it migrates at start; the payment and key flows arrive with the
 * billing issue.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { startPlatform } from '@gridlab/platform';
import { loadServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadServiceConfig(process.env);
  await startPlatform('billing', config, {
    ops: { host: config.OPS_HOST, port: config.OPS_PORT },
    migrate: { schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`billing: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
