import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '../src';

/** A fresh database with the indexer schema, and a repository on it. */
export interface StoreFixture {
  readonly db: TestDatabase;
  readonly pool: Pool;
  readonly repo: RoundRepository;
  close(): Promise<void>;
}

export async function storeFixture(): Promise<StoreFixture> {
  const db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  const pool = createPool(db.url);
  return {
    db,
    pool,
    repo: new RoundRepository(pool),
    close: async () => {
      await pool.end();
      await db.drop();
    },
  };
}
