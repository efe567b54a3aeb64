/**
 * A history fill against the devnet (rounds closed, only their transactions left) into a
 * real database: resumable, in id order, refusals recorded.
 */
import { OrePdas, SolanaRpc } from '@gridlab/chain';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { HistoryStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import { fillHistory, TransactionHistory, type FillProgress, type FillStore } from '../src';

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
    expect(stored.every((r) => r.source === 'transactions')).toBe(true);
    const truth = devnet.settledRounds().filter((r) => r.id <= 40);
    const strip = (r: (typeof stored)[number]) => ({ ...r, settledAt: '', productionCost: null, source: 'account', motherlodePool: null });
    expect(stored.map(strip)).toEqual(truth.map(strip));
    // Nothing left: a third fill has nothing to do and makes no RPC call.
    expect(await fillHistory({ fromId: 0, toId: 40 }, fetcher, store)).toMatchObject({ total: 0, done: 0, calls: 0 });
  });

  it('counts what a round cost: one signature page and a batch per hundred transactions', async () => {
    const fetched = await new TransactionHistory(rpc, new OrePdas(devnet.programId)).fetch(12, null);
    expect(fetched.result.ok).toBe(true);
    expect(fetched.calls).toBe(1 + Math.ceil(fetched.transactions / 100));
    expect(fetched.transactions).toBeGreaterThan(10);
  });
});
