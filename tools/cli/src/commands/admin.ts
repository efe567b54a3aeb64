import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA, KeyStore } from '@gridlab/billing-store';
import { createPool, runMigrations } from '@gridlab/db';
import { InputError } from '@gridlab/errors';
import { tombstoneKey } from '@gridlab/key-cache';
import bs58 from 'bs58';
import type { Command } from 'commander';
import { Redis } from 'ioredis';
import { apiKeySecret, loadCliConfig } from '../config';
import { registerChain } from './chain';
import { registerOrePrices } from './ore-prices';

const MAX_GRANT_DAYS = 3650;

function ownerKey(value: string): string {
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw new InputError(`--owner ${value} is not base58`);
  }
  if (bytes.length !== 32) throw new InputError('--owner must be a 32-byte base58 public key');
  return value;
}

function days(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_GRANT_DAYS) throw new InputError(`--days must be an integer from 1 to ${MAX_GRANT_DAYS}`);
  return n;
}

/** Runs `fn` with billing's key store and a way to tombstone revoked keys in the gateway cache. */
async function withKeyStore<T>(fn: (keys: KeyStore, tombstone: (hash: Buffer) => Promise<void>) => Promise<T>): Promise<T> {
  const config = loadCliConfig();
  const secret = apiKeySecret();
  await runMigrations({ databaseUrl: config.DATABASE_URL, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  const pool = createPool(config.DATABASE_URL, { max: 2, applicationName: 'gridlab-cli' });
  const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  const tombstone = async (hash: Buffer): Promise<void> => {
    try {
      await tombstoneKey(redis, config.REDIS_PREFIX, hash);
    } catch {
      // The key is revoked in PostgreSQL either way; gateways without Redis read it there.
      process.stderr.write('gridlab: warning: Redis unreachable; gateways may accept the old key until their cache entry expires (60 s)\n');
    }
  };
  try {
    await redis.connect().catch(() => undefined);
    return await fn(new KeyStore(pool, secret), tombstone);
  } finally {
    redis.disconnect();
    await pool.end();
  }
}

/** `gridlab admin grant|revoke`: keys without payment (support, partners, testing). */
export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('operator commands for subscriptions, API keys and the indexed chain');
  registerChain(admin);
  registerOrePrices(admin);

  admin
    .command('grant')
    .description('issue an API key without payment: creates or extends the owner\'s subscription by --days and revokes its previous key; prints {"apiKey","subscriberId","paidUntil"}')
    .requiredOption('--owner <base58>', 'wallet public key of the subscriber')
    .requiredOption('--days <n>', `days of access to add (1-${MAX_GRANT_DAYS})`)
    .action(async (opts: { owner: string; days: string }) => {
      const owner = ownerKey(opts.owner);
      const n = days(opts.days);
      const issued = await withKeyStore(async (keys, tombstone) => {
        const result = await keys.grant(owner, n, new Date());
        if (result.revokedKeyHash !== null) await tombstone(result.revokedKeyHash);
        return result;
      });
      process.stdout.write(`${JSON.stringify({ apiKey: issued.apiKey, subscriberId: issued.subscriberId, paidUntil: issued.paidUntil.toISOString() })}\n`);
    });

  admin
    .command('revoke')
    .description("revoke the owner's active API key at once, on every gateway replica")
    .requiredOption('--owner <base58>', 'wallet public key of the subscriber')
    .action(async (opts: { owner: string }) => {
      const owner = ownerKey(opts.owner);
      const revoked = await withKeyStore(async (keys, tombstone) => {
        const hash = await keys.revokeOwner(owner, 'operator', new Date());
        if (hash !== null) await tombstone(hash);
        return hash !== null;
      });
      process.stdout.write(`${JSON.stringify({ owner, revoked })}\n`);
    });
}
