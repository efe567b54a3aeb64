import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA, SiwsNonceLedger } from '../src';

let db: TestDatabase;
let pools: Pool[];

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  // Two pools: two gateway replicas, each with its own connections.
  pools = [createPool(db.url, { max: 4 }), createPool(db.url, { max: 4 })];
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db.drop();
});

describe('SiwsNonceLedger', () => {
  it('lets one of many concurrent consumers of a nonce, on two replicas, win; and only once', async () => {
    const replicas = pools.map((p) => new SiwsNonceLedger(p));
    const until = new Date(Date.now() + 300_000);
    const nonce = 'n'.repeat(36);
    const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => replicas[i % 2]!.consume(nonce, until)));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await replicas[0]!.consume(nonce, until)).toBe(false);
    expect(await replicas[1]!.consume('m'.repeat(36), until)).toBe(true);
    const { rows } = await pools[0]!.query<{ nonce: string; expires_at: Date }>('SELECT nonce, expires_at FROM billing.siws_used_nonces ORDER BY nonce');
    expect(rows).toEqual([
      { nonce: 'm'.repeat(36), expires_at: until },
      { nonce, expires_at: until },
    ]);
  });
});
