import { SolanaRpc } from '@gridlab/chain';
import { createPool, runMigrations } from '@gridlab/db';
import { ChainIdentityStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import type { Command } from 'commander';
import { loadCliConfig } from '../config';

/** How to start over with another chain: the indexer's data and everything derived from it go together. */
const START_OVER = [
  'Locally (make start): stop the suite, then `make reset` deletes the devnet ledger (.gridlab/devnet), the database, the JetStream streams and the live bucket, and the Redis keys of this checkout; `make start` then begins a new chain from genesis.',
  'In a deployment: stop every service; drop and recreate the database (or restore a backup taken on the recorded chain); delete the JetStream streams ROUNDS and BILLING and the LIVE bucket of the deployment (NATS_PREFIX); delete the Redis keys under REDIS_PREFIX; start the services pointed at the chain you mean to index.',
  'If the current chain is the wrong one, point SOLANA_RPC_URL at the recorded chain instead: nothing needs deleting.',
];

/** `gridlab admin chain`: the recorded and the current chain identity, and how to start over. */
export function registerChain(admin: Command): void {
  admin
    .command('chain')
    .description('show the chain the stored rounds come from (genesis hash recorded by the indexer), the chain the RPC serves now, and how to start over')
    .option('--rpc <url>', 'Solana JSON-RPC URL (default $SOLANA_RPC_URL or http://127.0.0.1:8899)')
    .action(async (opts: { rpc?: string }) => {
      const config = loadCliConfig();
      const rpcUrl = opts.rpc ?? process.env['SOLANA_RPC_URL'] ?? 'http://127.0.0.1:8899';
      await runMigrations({ databaseUrl: config.DATABASE_URL, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
      const pool = createPool(config.DATABASE_URL, { max: 2, applicationName: 'gridlab-cli' });
      try {
        const recorded = await new ChainIdentityStore(pool).recorded();
        const rounds = new RoundRepository(pool);
        let current: { genesisHash: string } | { error: string };
        try {
          current = { genesisHash: await new SolanaRpc(rpcUrl, 5000).getGenesisHash() };
        } catch (error) {
          current = { error: error instanceof Error ? error.message : String(error) };
        }
        const matches = recorded === null || !('genesisHash' in current) ? null : recorded.genesisHash === current.genesisHash;
        const report = {
          recorded: recorded === null ? null : { genesisHash: recorded.genesisHash, recordedAt: recorded.recordedAt.toISOString() },
          current: { rpcUrl: redact(rpcUrl), ...current },
          matches,
          storedRounds: await rounds.count(),
          latestRoundId: await rounds.latestId(),
          verdict:
            matches === true
              ? 'the indexer indexes the recorded chain'
              : matches === false
                ? 'the RPC serves another chain: the indexer refuses to index it'
                : recorded === null
                  ? 'no chain recorded yet: the next indexer start records the chain its RPC serves'
                  : 'the RPC did not answer: the current chain is unknown',
          startOver: START_OVER,
        };
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } finally {
        await pool.end();
      }
    });
}

/** An RPC URL without credentials (providers put API keys in the path or query). */
function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.length > 1 || u.search !== '' ? '/…' : ''}`;
  } catch {
    return '(unparsable URL)';
  }
}
