/**
 * A history fill against the devnet (rounds closed, only their transactions left) into a
 * real database: resumable, in id order, refusals recorded and tried again with back-off.
 */
import type { Round } from '@gridlab/contracts';
import { OrePdas, SolanaRpc } from '@gridlab/chain';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { HistoryStore, historyFillStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { createTestDatabase, provableRound, type TestDatabase } from '@gridlab/testing';
import { fillHistory, ledgerRows, settleWhenDecided, storedRound, TransactionHistory, type FillProgress, type FillStore } from '../src';

let devnet: Devnet;
let db: TestDatabase;
let pool: Pool;
let rpc: SolanaRpc;
let store: FillStore;
let repo: RoundRepository;
let history: HistoryStore;

beforeAll(async () => {
  // Slow live slots: only the 40 history rounds matter, every one closed at genesis.
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 1000, historyRounds: 40, roundExpirySlots: 1, deploysPerRound: 20, seed: 3 });
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  pool = createPool(db.url);
  rpc = new SolanaRpc(devnet.rpcUrl);
  repo = new RoundRepository(pool);
  history = new HistoryStore(pool);
  store = {
    missingIds: (a, b, n) => history.missingIds(a, b, n),
    missingCount: (a, b) => history.missingCount(a, b),
    insert: (rounds) => repo.insertMany(rounds),
    markRefused: (rounds) => history.markRefused(rounds),
    refusedAmong: (ids) => history.refusedAmong(ids),
    ruleBefore: (id) => repo.ruleBefore(id),
  };
});

afterAll(async () => {
  rpc.close();
  await pool.end();
  await db.drop();
  await devnet.stop();
});

describe('fillHistory', () => {
  it('rebuilds a range in id order a chunk at a time, stops when told, and resumes where it stopped', async () => {
    const fetcher = new TransactionHistory(rpc, new OrePdas(devnet.programId));
    const abort = new AbortController();
    const seen: FillProgress[] = [];
    const announced: number[] = [];
    const first = await fillHistory({ fromId: 0, toId: 40 }, fetcher, store, {
      chunk: 10,
      signal: abort.signal,
      onProgress: (p) => {
        seen.push(p);
        if (p.done >= 20) abort.abort();
      },
      onStored: async (rounds) => void announced.push(...rounds.map((r) => r.id)),
    });
    expect(first.total).toBe(41);
    expect(first.done).toBe(20);
    expect(seen.map((p) => [p.lastId, p.done])).toEqual([
      [9, 10],
      [19, 20],
    ]);
    expect(announced).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    // Round 0 never existed: recorded as such, and not tried again.
    expect(await history.unrecoverable()).toEqual({ byReason: { absent: 1 }, latest: [expect.objectContaining({ id: 0, reason: 'absent' })] });

    const second = await fillHistory({ fromId: 0, toId: 40 }, fetcher, store, { chunk: 10 });
    expect(second).toMatchObject({ total: 21, done: 21, stored: 21, refused: 0 });
    const stored = await repo.getRounds({ fromId: 0, toId: 40 });
    expect(stored.map((r) => r.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Each round as its transactions prove it: whole, or partly known where automated deploys before events took squares.
    const truth = devnet.settledRounds().filter((r) => r.id <= 40).map((t) => provableRound(t, devnet.roundDeploys(t.id)));
    expect(stored.map((r) => r.source)).toEqual(truth.map((t) => (t.source === 'transactions_partial' ? 'transactions_partial' : 'transactions')));
    const strip = (r: Round) => ({ ...r, settledAt: '', productionCost: null, source: null, motherlodePool: null });
    expect(stored.map(strip)).toEqual(truth.map(strip));
    // Nothing left: a third fill has nothing to do and makes no RPC call.
    expect(await fillHistory({ fromId: 0, toId: 40 }, fetcher, store)).toMatchObject({ total: 0, done: 0, calls: 0 });
  });

  it("settles a round's miners when it is read, as they are settled once it is stored, where the round alone decides how; keeps the facts otherwise", async () => {
    const fetcher = new TransactionHistory(rpc, new OrePdas(devnet.programId), { ledger: true });
    let previous: Round['payoutRule'] | null = null;
    let early = 0;
    for (let id = 1; id <= 40; id++) {
      const fetched = await fetcher.fetch(id, null);
      if (!fetched.result.ok) continue;
      const stored = storedRound(fetched as typeof fetched & { result: { ok: true } }, previous, new Date());
      if (!stored.ok) continue;
      previous = stored.round.payoutRule;
      const settled = settleWhenDecided(fetched);
      if (settled.settled !== undefined) {
        early++;
        expect(settled.ledger).toBeUndefined();
      } else expect(settled).toBe(fetched);
      expect([id, ledgerRows(settled, stored.round)]).toEqual([id, ledgerRows(fetched, stored.round)]);
    }
    expect(early).toBeGreaterThan(30);
    // Rows settled when read belong to the round as read: a round stored otherwise is an error, not other rows.
    const fetched = settleWhenDecided(await fetcher.fetch(12, null));
    expect(() => ledgerRows(fetched, { payoutRule: 'parimutuel', settledAt: '2020-01-01T00:00:00.000Z' })).toThrow(/stored under parimutuel at 2020/);
  });

  it('counts what a round cost: one signature page and a batch per hundred transactions', async () => {
    const fetched = await new TransactionHistory(rpc, new OrePdas(devnet.programId)).fetch(12, null);
    expect(fetched.result.ok).toBe(true);
    expect(fetched.calls).toBe(1 + Math.ceil(fetched.transactions / 100));
    expect(fetched.transactions).toBeGreaterThan(10);
  });
});

describe('a refused round', () => {
  // A database of its own: the rounds here are missing whatever the tests above stored.
  let own: TestDatabase;
  let ownPool: Pool;
  let ownHistory: HistoryStore;

  beforeAll(async () => {
    own = await createTestDatabase();
    await runMigrations({ databaseUrl: own.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    ownPool = createPool(own.url);
    ownHistory = new HistoryStore(ownPool);
  });

  afterAll(async () => {
    await ownPool.end();
    await own.drop();
  });

  const MINUTE = 60_000;

  it('is tried again once its back-off is over, and stored then; until then a fill passes over it', async () => {
    const fetcher = new TransactionHistory(rpc, new OrePdas(devnet.programId));
    const fillStore = historyFillStore(ownPool);
    // Rounds 5 and 6 refused as the version before refused rounds an attack transaction
    // listed: 5 ten minutes ago (its first retry, 5 minutes later, is due), 6 just now.
    const now = Date.now();
    await ownHistory.markRefused([{ id: 5, reason: 'undecodable', detail: 'round 5: a DeployEvent of u64::MAX lamports' }], new Date(now - 10 * MINUTE));
    await ownHistory.markRefused([{ id: 6, reason: 'mismatch', detail: 'round 6: a deploy of another round counted' }], new Date(now));
    const [five, six] = await ownHistory.refused();
    expect(five).toMatchObject({ id: 5, attempts: 1, nextAttemptAt: new Date(now - 5 * MINUTE) });
    expect(six).toMatchObject({ id: 6, attempts: 1, nextAttemptAt: new Date(now + 5 * MINUTE) });

    const retrying: number[] = [];
    const first = await fillHistory({ fromId: 5, toId: 8 }, fetcher, fillStore, { onRetrying: (ids) => void retrying.push(...ids) });
    expect(first).toMatchObject({ total: 3, stored: 3, refused: 0, retried: 1, recovered: 1 });
    expect(retrying).toEqual([5]);
    expect((await new RoundRepository(ownPool).getRounds({ fromId: 5, toId: 8 })).map((r) => r.id)).toEqual([5, 7, 8]);
    // Stored: its refusal is gone. Round 6 waits for its retry.
    expect((await ownHistory.refused()).map((r) => r.id)).toEqual([6]);
    expect(await ownHistory.missingCount(5, 8)).toBe(0);

    // Its retry due (what `gridlab backfill --retry 6` does first), the next fill stores it.
    expect(await ownHistory.retryRefusedNow(6)).toEqual([6]);
    expect(await fillHistory({ fromId: 5, toId: 8 }, fetcher, fillStore)).toMatchObject({ total: 1, stored: 1, retried: 1, recovered: 1 });
    expect(await ownHistory.refused()).toEqual([]);
    const truth = devnet.settledRounds().filter((r) => r.id >= 5 && r.id <= 8).map((t) => provableRound(t, devnet.roundDeploys(t.id)));
    const strip = (r: Round) => ({ ...r, settledAt: '', productionCost: null, source: null, motherlodePool: null });
    expect((await new RoundRepository(ownPool).getRounds({ fromId: 5, toId: 8 })).map(strip)).toEqual(truth.map(strip));
  });

  it('refused again waits twice as long, up to a day, and is never dropped', async () => {
    const fetcher = new TransactionHistory(rpc, new OrePdas(devnet.programId));
    const fillStore = historyFillStore(ownPool);
    // Round 0 never existed: refused (absent) at each try.
    await fillHistory({ fromId: 0, toId: 0 }, fetcher, fillStore);
    const [once] = await ownHistory.refused(0);
    expect(once).toMatchObject({ id: 0, reason: 'absent', attempts: 1 });
    expect(once!.nextAttemptAt.getTime() - once!.at.getTime()).toBe(5 * MINUTE);
    await ownHistory.retryRefusedNow(0);
    expect(await fillHistory({ fromId: 0, toId: 0 }, fetcher, fillStore)).toMatchObject({ total: 1, refused: 1, retried: 1, recovered: 0 });
    const [twice] = await ownHistory.refused(0);
    expect(twice).toMatchObject({ attempts: 2 });
    expect(twice!.nextAttemptAt.getTime() - twice!.at.getTime()).toBe(10 * MINUTE);
    // The wait stops growing at a day: 5 min * 2^8 is past it by the tenth refusal.
    for (let i = 3; i <= 12; i++) await ownHistory.markRefused([{ id: 0, reason: 'absent', detail: 'still nothing' }]);
    const [later] = await ownHistory.refused(0);
    expect(later).toMatchObject({ attempts: 12 });
    expect(later!.nextAttemptAt.getTime() - later!.at.getTime()).toBe(24 * 60 * MINUTE);
  });
});

describe("a fill's miners", () => {
  let own: TestDatabase;
  let ownPool: Pool;

  beforeAll(async () => {
    own = await createTestDatabase();
    await runMigrations({ databaseUrl: own.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    ownPool = createPool(own.url);
  });

  afterAll(async () => {
    await ownPool.end();
    await own.drop();
  });

  it('are folded into the rollups once enough rounds wait, and at the end: every round stored is folded before the fill returns', async () => {
    const fetcher = new TransactionHistory(rpc, new OrePdas(devnet.programId), { ledger: true });
    let inserted = 0;
    /** Rounds whose miners were inserted when each fold came. */
    const folds: number[] = [];
    const fillStore: FillStore = {
      ...historyFillStore(ownPool),
      insertMiners: async (rounds) => void (inserted += rounds.length),
      foldMiners: async () => void folds.push(inserted),
    };
    const result = await fillHistory({ fromId: 1, toId: 35 }, fetcher, fillStore, { chunk: 10, foldEvery: 15 });
    expect(result).toMatchObject({ stored: 35 });
    expect(inserted).toBe(35);
    expect(folds).toEqual([20, 35]);
  });
});
