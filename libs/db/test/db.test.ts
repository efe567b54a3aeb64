import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import { acquireLeaderLock, createPool, runMigrations, withTransaction, type Pool } from '../src';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url);
});

afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe('runMigrations', () => {
  it('creates the schema and applies each migration once, even when run concurrently', async () => {
    const options = { databaseUrl: db.url, schema: 'sample', dir: join(__dirname, 'fixtures') };
    await Promise.all([runMigrations(options), runMigrations(options)]);
    await runMigrations(options);
    const { rows } = await pool.query('SELECT name FROM sample.pgmigrations');
    expect(rows.map((r) => r.name)).toEqual(['1700000000000_things']);
    await pool.query('INSERT INTO sample.things VALUES (9007199254740991)');
    const read = await pool.query('SELECT id FROM sample.things');
    expect(read.rows[0].id).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('withTransaction', () => {
  it('rolls back everything when the callback throws', async () => {
    await pool.query('CREATE TABLE IF NOT EXISTS public.tx (n int)');
    await expect(
      withTransaction(pool, async (c) => {
        await c.query('INSERT INTO public.tx VALUES (1)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await pool.query('SELECT count(*)::int AS n FROM public.tx')).rows[0].n).toBe(0);
  });
});

describe('createPool idleInTransactionTimeoutMs', () => {
  it("has PostgreSQL end a transaction left idle longer (a stalled reader's snapshot)", async () => {
    const guarded = createPool(db.url, { max: 1, idleInTransactionTimeoutMs: 300 });
    try {
      const client = await guarded.connect();
      const ended = new Promise<Error>((resolve) => client.once('error', resolve));
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query('SELECT 1');
      // Idle inside the transaction past the timeout: the server ends the session.
      expect((await ended).message).toMatch(/idle-in-transaction timeout/);
      client.release(true);
      // The pool opens a fresh connection for the next user.
      expect((await guarded.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await guarded.end();
    }
    // Without the option nothing ends it (the default pool's setting is the server's: 0, off).
    const { rows } = await pool.query("SELECT current_setting('idle_in_transaction_session_timeout') AS t");
    expect(rows[0].t).toBe('0');
  });
});

describe('acquireLeaderLock', () => {
  it('gives the lock to a standby only after the leader releases it', async () => {
    const first = await acquireLeaderLock(db.url, 'test-lock', { retryMs: 50 });
    let secondHeld = false;
    const second = acquireLeaderLock(db.url, 'test-lock', { retryMs: 50 }).then((lock) => {
      secondHeld = true;
      return lock;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(secondHeld).toBe(false);
    await first.release();
    const lock = await second;
    expect(secondHeld).toBe(true);
    await lock.release();
  });

  it("hands over when the leader's connection is killed, and tells the old leader", async () => {
    let told!: () => void;
    const lost = new Promise<void>((resolve) => (told = resolve));
    const first = await acquireLeaderLock(db.url, 'kill-lock', { retryMs: 50, onLost: () => told() });
    const second = acquireLeaderLock(db.url, 'kill-lock', { retryMs: 50 });
    await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'leader:kill-lock' AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)`);
    const lock = await second;
    // The old leader hears of its dead connection on its own socket: before or after the
    // standby's next try takes the lock, but it hears (the test's timeout bounds the wait).
    await lost;
    await lock.release();
    await first.release();
  });
});
