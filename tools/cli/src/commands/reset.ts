import { rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { connectBus, deleteGridlabStreams } from '@gridlab/bus';
import { createPool } from '@gridlab/db';
import { natsNames } from '@gridlab/contracts';
import { InputError } from '@gridlab/errors';
import { createLogger } from '@gridlab/logger';
import type { Command } from 'commander';
import { Redis } from 'ioredis';
import { LOCAL_DATA_DIR } from '../config';

const LOCAL_HOSTS = new Set(['', '127.0.0.1', 'localhost', '::1', '[::1]']);

function setting(name: string, fallback: string): string {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
}

/** True when something answers JSON-RPC at `url` (a devnet, i.e. the suite, is running). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"getHealth"}',
      signal: AbortSignal.timeout(1000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * `gridlab devnet reset` (`make reset`): the local suite starts over from genesis. Deletes
 * the devnet ledger, recreates the database, deletes this namespace's JetStream streams
 * and live bucket and the Redis keys under REDIS_PREFIX: together, so that nothing stored
 * refers to a chain that no longer runs. Refuses while the suite runs, for a database
 * that is not on this machine, or with an empty Redis prefix.
 */
export function registerReset(devnet: Command): void {
  devnet
    .command('reset')
    .description('start the local suite over from genesis: deletes the devnet ledger, the database, the JetStream streams and live bucket, and the Redis keys of this checkout (refuses while the suite runs)')
    .option('--rpc <url>', 'devnet JSON-RPC URL checked to be stopped', setting('SOLANA_RPC_URL', 'http://127.0.0.1:8899'))
    .action(async (opts: { rpc: string }) => {
      const databaseUrl = setting('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/gridlab');
      const ledgerDir = resolve(setting('DEVNET_LEDGER_DIR', join(setting('GRIDLAB_DATA_DIR', LOCAL_DATA_DIR), 'devnet')));
      // As the services read them: an empty value is an empty prefix, not the default.
      const natsPrefix = process.env['NATS_PREFIX'] ?? '';
      const redisPrefix = process.env['REDIS_PREFIX'] ?? 'gridlab:';
      const url = new URL(databaseUrl);
      const database = decodeURIComponent(url.pathname.slice(1));
      if (!LOCAL_HOSTS.has(url.hostname)) throw new InputError(`refusing to reset: the database is on ${url.hostname}, not this machine (reset is for the local suite only)`);
      if (database === '' || database === 'postgres' || database.startsWith('template')) throw new InputError(`refusing to reset the database "${database}"`);
      if (redisPrefix === '') throw new InputError('refusing to reset: REDIS_PREFIX is empty (it would delete every key)');
      if (await answers(opts.rpc)) throw new InputError(`refusing to reset: a devnet answers at ${opts.rpc}; stop the suite (Ctrl-C on make start) first`);

      const adminUrl = new URL(databaseUrl);
      adminUrl.pathname = '/postgres';
      const admin = createPool(adminUrl.toString(), { max: 1, applicationName: 'gridlab-reset' });
      try {
        const { rows } = await admin.query<{ application_name: string }>(
          'SELECT DISTINCT application_name FROM pg_stat_activity WHERE datname = $1',
          [database],
        );
        if (rows.length > 0) {
          throw new InputError(`refusing to reset: the database "${database}" is in use (${rows.map((r) => r.application_name || 'unnamed').join(', ')}); stop the suite first`);
        }
        const ledgerExisted = await stat(ledgerDir).then(() => true, () => false);
        await rm(ledgerDir, { recursive: true, force: true });
        await admin.query(`DROP DATABASE IF EXISTS "${database.replace(/"/g, '""')}"`);
        await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);

        const nc = await connectBus({ servers: setting('NATS_URL', 'nats://127.0.0.1:4222'), name: 'gridlab-reset', logger: createLogger({ service: 'gridlab-cli', silent: true }) });
        let streams: string[];
        try {
          streams = await deleteGridlabStreams(nc, natsNames(natsPrefix));
        } finally {
          await nc.close();
        }

        const redis = new Redis(setting('REDIS_URL', 'redis://127.0.0.1:6379'), { maxRetriesPerRequest: 1 });
        let redisKeys = 0;
        try {
          let cursor = '0';
          do {
            const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000);
            if (keys.length > 0) redisKeys += await redis.del(...keys);
            cursor = next;
          } while (cursor !== '0');
        } finally {
          redis.disconnect();
        }
        process.stdout.write(
          `${JSON.stringify({ ledgerDir, ledgerRemoved: ledgerExisted, database: `${database} (dropped and created empty)`, streamsDeleted: streams, redisKeysDeleted: redisKeys }, null, 2)}\n` +
            'The next `make start` begins a new chain from genesis.\n',
        );
      } finally {
        await admin.end();
      }
    });
}
