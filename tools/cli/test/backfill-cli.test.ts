/**
 * `gridlab backfill` against a devnet whose rounds closed: it estimates the calls, rebuilds
 * the range from transactions into PostgreSQL, reports a JSON summary, and a rerun (or a
 * wider range after an interrupted one) does only what is left.
 */
import type { KnownRound, Round } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { HistoryStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { comparableRounds, createTestDatabase, runCli, type TestDatabase } from '@gridlab/testing';

/** A devnet whose history rounds closed at genesis (only their transactions remain), and an empty indexer schema. */
interface ClosedChain {
  readonly devnet: Devnet;
  readonly pool: Pool;
  readonly env: NodeJS.ProcessEnv;
}

function closedChain(options: { slotMs: number; historyRounds: number; deploysPerRound: number; seed: number }): () => ClosedChain {
  let chain: ClosedChain | undefined;
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    const devnet = await startDevnet({ rpcPort: 0, wsPort: 0, eras: 'returns', roundExpirySlots: 1, ...options });
    db = await createTestDatabase();
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    chain = { devnet, pool: createPool(db.url), env: { DATABASE_URL: db.url, SOLANA_RPC_URL: devnet.rpcUrl, ORE_PROGRAM_ID: devnet.programId, RPC_LIMITS: 'none' } };
  });
  afterAll(async () => {
    await chain?.pool.end();
    await db?.drop();
    await chain?.devnet.stop();
  });
  return () => chain!;
}

describe('gridlab backfill', () => {
  // 60 rounds of history, every one closed at genesis: only their transactions remain.
  const chain = closedChain({ slotMs: 400, historyRounds: 60, deploysPerRound: 40, seed: 21 });

  it('estimates the calls, rebuilds a range of closed rounds as the chain recorded them, and a rerun does nothing', async () => {
    const { devnet, pool, env } = chain();
    const first = await runCli(['backfill', '--from-round', '10', '--to-round', '29'], env, 120_000);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/backfill: 20 rounds to rebuild in 10\.\.29, about \d+ transactions each: about \d+ RPC requests \(20 signature pages, \d+ batches of up to 100 transactions\); no RPC_LIMITS/);
    expect(JSON.parse(first.stdout)).toMatchObject({ fromRound: 10, toRound: 29, missing: 20, stored: 20, refused: 0, interrupted: false });
    const stored = await new RoundRepository(pool).getRounds({ fromId: 1, toId: 60, limit: 100 });
    expect(stored.map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 10));
    expect(stored.every((r) => r.source === 'transactions' && r.productionCost === null && r.motherlodePool === (r.motherlode > 0 ? r.motherlode : null))).toBe(true);
    const truth = devnet.settledRounds().filter((r) => r.id >= 10 && r.id <= 29);
    const recoverable = comparableRounds(stored).map(({ source: _source, productionCost: _cost, ...rest }) => rest);
    expect(recoverable).toEqual(comparableRounds(truth).map(({ source: _source, productionCost: _cost, ...rest }) => rest));

    const again = await runCli(['backfill', '--from-round', '10', '--to-round', '29'], env, 60_000);
    expect(JSON.parse(again.stdout)).toMatchObject({ missing: 0, stored: 0, rpcCalls: 0 });
  });

  it('resumes: a wider range rebuilds only the rounds not stored, up to the newest settled one by default', async () => {
    const { devnet, pool, env } = chain();
    const newest = devnet.currentRoundId() - 1;
    const run = await runCli(['backfill', '--from-round', '1'], env, 120_000);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { toRound: number; missing: number; stored: number; refused: number };
    expect(summary.toRound).toBeGreaterThanOrEqual(newest);
    // Rounds 10..29 were stored by the first run; the live rounds past the history may still have their accounts (stored all the same).
    expect(summary.missing).toBe(summary.toRound - 20);
    expect(summary.stored + summary.refused).toBe(summary.missing);
    expect((await new HistoryStore(pool).missingCount(1, summary.toRound))).toBe(0);
  });

  it('exits 2 with one clear line for a bad range', async () => {
    const { env } = chain();
    const bad = await runCli(['backfill', '--from-round', '30', '--to-round', '10'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^gridlab: --to-round 10 is before --from-round 30/);
    const notId = await runCli(['backfill', '--from-round', 'x'], env);
    expect(notId.code).toBe(2);
    expect(notId.stderr).toMatch(/x is not a round id/);
  });
});

describe('gridlab backfill --refused / --retry', () => {
  const chain = closedChain({ slotMs: 1000, historyRounds: 12, deploysPerRound: 10, seed: 22 });

  it('lists the refused rounds, retries one or all at once, and lists what is left', async () => {
    const { devnet, pool, env } = chain();
    const history = new HistoryStore(pool);
    // Refused as the version before refused the rounds an attack transaction listed: retries an hour away and more.
    await history.markRefused([
      { id: 3, reason: 'undecodable', detail: 'round 3: a DeployEvent of u64::MAX lamports' },
      { id: 4, reason: 'undecodable', detail: 'round 4: a DeployEvent of u64::MAX lamports' },
      { id: 9, reason: 'mismatch', detail: 'round 9: a deploy of another round counted' },
    ]);
    await history.markRefused([{ id: 0, reason: 'absent', detail: 'round 0: no transaction touched its address' }]);

    const listed = await runCli(['backfill', '--refused'], env);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ id: 0, reason: 'absent', attempts: 1 }),
      expect.objectContaining({ id: 3, reason: 'undecodable', detail: 'round 3: a DeployEvent of u64::MAX lamports', attempts: 1, nextAttemptAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }),
      expect.objectContaining({ id: 4, reason: 'undecodable' }),
      expect.objectContaining({ id: 9, reason: 'mismatch' }),
    ]);
    expect(listed.stderr).toMatch(/backfill: 4 refused rounds/);

    const one = await runCli(['backfill', '--retry', '9'], env, 60_000);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ retried: 1, stored: 1, refused: 0 });
    const all = await runCli(['backfill', '--retry'], env, 60_000);
    expect(all.code).toBe(0);
    // 3 and 4 store; 0 never existed and is refused again (a second attempt, a longer wait).
    expect(JSON.parse(all.stdout)).toMatchObject({ retried: 3, stored: 2, refused: 1 });
    expect(all.stderr).toMatch(/round 0 not rebuilt \(absent\)/);

    const stored = await new RoundRepository(pool).getRounds({ fromId: 0, toId: 12 });
    expect(stored.map((r) => r.id)).toEqual([3, 4, 9]);
    const truth = devnet.settledRounds().filter((r) => [3, 4, 9].includes(r.id));
    const strip = (r: Round | KnownRound) => ({ ...r, settledAt: '', productionCost: null, source: 'account', motherlodePool: null });
    expect(stored.map(strip)).toEqual(truth.map(strip));

    const left = await runCli(['backfill', '--refused'], env);
    expect(left.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([expect.objectContaining({ id: 0, reason: 'absent', attempts: 2 })]);
    const notRefused = await runCli(['backfill', '--retry', '5'], env);
    expect(notRefused.code).toBe(2);
    expect(notRefused.stderr).toMatch(/round 5 is not refused/);
    const noRange = await runCli(['backfill'], env);
    expect(noRange.code).toBe(2);
    expect(noRange.stderr).toMatch(/--from-round is required/);
  });
});
