/**
 * Deleting a Lab strategy is recoverable. Over real parts (PostgreSQL,
 * NATS, Redis, the gateway and lab-forward processes): a deleted strategy disappears from
 * every read, the leaderboard and the owner's cap; its owner, and nobody else, restores
 * it; lab-forward purges it for good once LAB_DELETED_RETENTION_DAYS have passed.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { MAX_STRATEGIES_PER_OWNER } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { answersOk, createTestDatabase, freePort, runCli, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';

const SECRET = 'lab-soft-delete-secret-0123456789abcdef';
const OWNER_A = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const OWNER_B = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW';
/** Ten base58 letters: two of them number a filler strategy's id. */
const FILL = 'ABCDEFGHJK';
const DSL = { base_strategy: 'cold', params: { bet_size_lamports: 10_000_000, num_squares: 5 } };

let db: TestDatabase;
let pool: Pool;
let gateway: string;
let keyA: string;
let keyB: string;
const ns = testNamespace();
const processes: ServiceProcess[] = [];

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: db.url,
    NATS_URL: ns.natsUrl,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

async function call(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gateway}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

const create = async (key: string, name: string): Promise<string> => {
  const res = await call('POST', '/lab/strategies', key, { name, dsl: DSL });
  expect(res.status).toBe(201);
  return res.body.strategy.id as string;
};

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  // lab-forward's writer reads the (here empty) round history.
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  pool = createPool(db.url);
  const [port, labPort] = await Promise.all([freePort(), freePort()]);
  gateway = `http://127.0.0.1:${port}`;
  processes.push(
    ...(await Promise.all([
      startService('services/api-gateway/src/main.ts', env({ PORT: String(port) }), () => answersOk(`${gateway}/healthz`)),
      startService(
        'services/lab-forward/src/main.ts',
        env({ OPS_PORT: String(labPort), LAB_DELETED_RETENTION_DAYS: '1', LAB_PURGE_INTERVAL_MS: '200' }),
        () => answersOk(`http://127.0.0.1:${labPort}/healthz`),
      ),
    ])),
  );
  const grant = async (owner: string) => (JSON.parse((await runCli(['admin', 'grant', '--owner', owner, '--days', '1'], env())).stdout) as { apiKey: string }).apiKey;
  [keyA, keyB] = await Promise.all([grant(OWNER_A), grant(OWNER_B)]);
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await pool?.end();
  await db?.drop();
  await ns.cleanup();
});

describe('deleting a strategy is recoverable', () => {
  it('a deleted strategy is gone from every read and the board; its owner restores it, another subscriber cannot', async () => {
    const id = await create(keyA, 'Keeper');
    const before = (await call('GET', `/lab/strategies/${id}`, keyA)).body.strategy;
    // Put it on the board (it would take a thousand settled rounds to get there).
    await pool.query(`UPDATE lab.forward_stats SET rounds_settled = 2000, roi_percent = 12.5 WHERE strategy_id = $1`, [id]);
    await pool.query(`INSERT INTO lab.leaderboard (rank, strategy_id, roi_percent, rounds_settled, net_lamports) VALUES (1, $1, 12.5, 2000, 0)`, [id]);
    expect((await call('GET', '/lab/leaderboard', keyB)).body.entries.map((e: { id: string }) => e.id)).toContain(id);

    expect(await call('DELETE', `/lab/strategies/${id}`, keyA)).toEqual({ status: 200, body: { ok: true } });
    for (const [method, path] of [
      ['GET', `/lab/strategies/${id}`],
      ['GET', `/lab/strategies/${id}/forward`],
      ['PATCH', `/lab/strategies/${id}`],
      ['DELETE', `/lab/strategies/${id}`],
      ['GET', `/lab/leaderboard/${id}`],
    ] as const) {
      const res = await call(method, path, keyA, method === 'PATCH' ? { name: 'x' } : undefined);
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 404, 'strategy_not_found']);
    }
    expect((await call('GET', '/lab/strategies', keyA)).body.strategies.map((s: { id: string }) => s.id)).not.toContain(id);
    expect((await call('GET', '/lab/leaderboard', keyB)).body.entries.map((e: { id: string }) => e.id)).not.toContain(id);
    // Not forward-tested while deleted.
    expect((await pool.query(`SELECT active FROM lab.strategies WHERE id = $1`, [id])).rows[0].active).toBe(false);

    // Another subscriber cannot restore it (nor learn that it exists).
    const stranger = await call('POST', `/lab/strategies/${id}/restore`, keyB);
    expect([stranger.status, stranger.body.code]).toEqual([404, 'strategy_not_found']);

    const restored = await call('POST', `/lab/strategies/${id}/restore`, keyA);
    expect(restored.status).toBe(200);
    expect(restored.body.strategy).toMatchObject({ id, owner: OWNER_A, name: 'Keeper', dsl: before.dsl, createdAt: before.createdAt, active: true });
    expect((await call('GET', `/lab/strategies/${id}`, keyA)).status).toBe(200);
    expect((await call('GET', '/lab/strategies', keyA)).body.strategies.map((s: { id: string }) => s.id)).toContain(id);
    // Its record came back with it.
    expect((await call('GET', `/lab/strategies/${id}/forward`, keyA)).status).toBe(200);
    expect((await pool.query(`SELECT rounds_settled FROM lab.forward_stats WHERE strategy_id = $1`, [id])).rows[0].rounds_settled).toBe(2000);
    // Restoring what is not deleted answers 404 too.
    expect((await call('POST', `/lab/strategies/${id}/restore`, keyA)).status).toBe(404);
  });

  it('deleted strategies do not count toward the cap; a restore past it answers 409', async () => {
    const held = (await call('GET', '/lab/strategies', keyB)).body.count as number;
    const ids = [await create(keyB, 'first')];
    // The rest up to the cap straight into the table (the API allows 60 requests a minute per key).
    const fill = Array.from({ length: MAX_STRATEGIES_PER_OWNER - held - 1 }, (_, i) => `stg_${FILL[Math.floor(i / 10)]}${FILL[i % 10]}${'a'.repeat(20)}`);
    await pool.query(
      `INSERT INTO lab.strategies (id, owner, name, dsl, active, session_seq, session_start_round_id, created_at, updated_at)
       SELECT u.id, $2, 'filler', '{}', false, 1, 1, now(), now() FROM unnest($1::text[]) AS u(id)`,
      [fill, OWNER_B],
    );
    await pool.query(`INSERT INTO lab.forward_stats (strategy_id) SELECT unnest($1::text[])`, [fill]);
    const full = await call('POST', '/lab/strategies', keyB, { name: 'one too many', dsl: DSL });
    expect([full.status, full.body.code]).toEqual([409, 'strategy_limit_reached']);
    expect((await call('DELETE', `/lab/strategies/${ids[0]}`, keyB)).status).toBe(200);
    const replacement = await create(keyB, 'replacement');
    const over = await call('POST', `/lab/strategies/${ids[0]}/restore`, keyB);
    expect([over.status, over.body.code]).toEqual([409, 'strategy_limit_reached']);
    expect((await call('DELETE', `/lab/strategies/${replacement}`, keyB)).status).toBe(200);
    expect((await call('POST', `/lab/strategies/${ids[0]}/restore`, keyB)).status).toBe(200);
  });

  it('a strategy deleted longer ago than LAB_DELETED_RETENTION_DAYS is purged with its record and cannot be restored', async () => {
    const id = await create(keyA, 'Doomed');
    const recent = await create(keyA, 'Recently deleted');
    expect((await call('DELETE', `/lab/strategies/${id}`, keyA)).status).toBe(200);
    expect((await call('DELETE', `/lab/strategies/${recent}`, keyA)).status).toBe(200);
    await pool.query(`UPDATE lab.strategies SET deleted_at = now() - interval '25 hours' WHERE id = $1`, [id]);
    await until(async () => (await pool.query(`SELECT 1 FROM lab.strategies WHERE id = $1`, [id])).rowCount === 0);
    expect((await pool.query(`SELECT 1 FROM lab.forward_stats WHERE strategy_id = $1`, [id])).rowCount).toBe(0);
    const gone = await call('POST', `/lab/strategies/${id}/restore`, keyA);
    expect([gone.status, gone.body.code]).toEqual([404, 'strategy_not_found']);
    // One deleted within the retention is kept, restorable.
    expect((await call('POST', `/lab/strategies/${recent}/restore`, keyA)).status).toBe(200);
  });
});
