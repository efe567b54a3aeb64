import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import { API_KEY_RE } from '@gridlab/contracts';
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA, KeyStore } from '../src';

const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const DAY = 86_400_000;
let db: TestDatabase;
let pool: Pool;
let keys: KeyStore;

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  pool = createPool(db.url);
  keys = new KeyStore(pool, 'test-secret');
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe('KeyStore', () => {
  it('grants a key that looks up to its subscriber, storing only its hash', async () => {
    const now = new Date('2026-11-01T00:00:00.000Z');
    const issued = await keys.grant(OWNER, 30, now);
    expect(issued.apiKey).toMatch(API_KEY_RE);
    expect(issued.paidUntil.getTime()).toBe(now.getTime() + 30 * DAY);
    expect(await keys.lookup(keys.hash(issued.apiKey))).toEqual({ subscriberId: issued.subscriberId, paidUntil: issued.paidUntil });
    const stored = await pool.query('SELECT key_hash::text AS h FROM billing.api_keys');
    expect(JSON.stringify(stored.rows)).not.toContain(issued.apiKey);
  });

  it('extends from the later of now and paidUntil and revokes the previous key', async () => {
    const first = await keys.grant(OWNER, 10, new Date('2026-11-02T00:00:00.000Z'));
    const second = await keys.grant(OWNER, 10, new Date('2026-11-03T00:00:00.000Z'));
    expect(second.subscriberId).toBe(first.subscriberId);
    expect(second.paidUntil.getTime()).toBe(first.paidUntil.getTime() + 10 * DAY);
    expect(second.revokedKeyHash?.equals(keys.hash(first.apiKey))).toBe(true);
    expect(await keys.lookup(keys.hash(first.apiKey))).toBeNull();
    expect(await keys.lookup(keys.hash(second.apiKey))).not.toBeNull();
  });

  it('revokes the owner key at once and reports nothing for an unknown owner', async () => {
    const issued = await keys.grant(OWNER, 1, new Date());
    const revoked = await keys.revokeOwner(OWNER, 'operator', new Date());
    expect(revoked?.equals(keys.hash(issued.apiKey))).toBe(true);
    expect(await keys.lookup(keys.hash(issued.apiKey))).toBeNull();
    expect(await keys.revokeOwner('11111111111111111111111111111111', 'operator', new Date())).toBeNull();
  });

  it("finds a wallet's active key by its hash, and none once it is revoked or for an unknown wallet", async () => {
    const owner = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
    const issued = await keys.grant(owner, 5, new Date());
    expect(await keys.activeKeyOf(owner)).toEqual({ keyHash: keys.hash(issued.apiKey), subscriberId: issued.subscriberId, paidUntil: issued.paidUntil });
    await keys.revokeOwner(owner, 'operator', new Date());
    expect(await keys.activeKeyOf(owner)).toBeNull();
    expect(await keys.activeKeyOf('11111111111111111111111111111111')).toBeNull();
  });
});
