import type { Logger } from '@gridlab/logger';
import { runner } from 'node-pg-migrate';
import pg from 'pg';

export interface MigrateOptions {
  readonly databaseUrl: string;
  /** The service's own schema; created when missing, holds its migrations table too. */
  readonly schema: string;
  /** Directory of node-pg-migrate migration files (.sql with Up/Down sections). */
  readonly dir: string;
  readonly logger?: Logger;
}

const SCHEMA_RE = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * Applies pending migrations of one service schema. Replicas starting together queue on
 * a blocking advisory lock per schema (node-pg-migrate's own lock fails fast instead of
 * waiting), so every one of them returns with the schema up to date.
 */
export async function runMigrations(options: MigrateOptions): Promise<void> {
  if (!SCHEMA_RE.test(options.schema)) throw new RangeError(`invalid schema name ${options.schema}`);
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`gridlab-migrate:${options.schema}`]);
    // Created only when missing: a per-service role owns its schema (k8s/engines/postgres-roles.sql)
    // but may not create schemas in the database, which even CREATE SCHEMA IF NOT EXISTS asks.
    const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema]);
    if (rowCount === 0) await client.query(`CREATE SCHEMA ${options.schema}`);
    const applied = await runner({
      dbClient: client,
      dir: options.dir,
      direction: 'up',
      schema: options.schema,
      createSchema: false,
      migrationsSchema: options.schema,
      migrationsTable: 'pgmigrations',
      checkOrder: true,
      noLock: true,
      log: () => undefined,
      logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    if (applied.length > 0) {
      options.logger?.info('migrations applied', { schema: options.schema, migrations: applied.map((m) => m.name) });
    }
  } finally {
    await client.end(); // also releases the advisory lock
  }
}
