/**
 * Rows written now and added to the rollups later (the history fill's writes): once
 * folded, the hourly, daily and all-time rollups are exactly what writing each round with
 * its rollups gives, whatever the order of folds, packing of closed blocks, a fold that
 * failed, or two folds at once.
 */
import { MinerRows } from '@gridlab/chain';
import type { MinerRound } from '@gridlab/contracts';
import bs58 from 'bs58';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import { BLOCK_ROUNDS, MinerLedgerStore, MinerLedgerWriter, type LedgerEntry } from '../src';
import { SLOT_BUCKET_COUNT, slotsOf } from '../src/rollup';
import { prng, roundRows, T0, wallets } from './rows';

/** 3,000 rounds 90 s apart: 75 hours, the last 48 of them in the hourly rollups, two and a bit blocks. */
const ROUNDS = 3000;
const settledAt = (id: number) => new Date(T0 + id * 90_000);
const now = settledAt(ROUNDS);
const PRICED_DAY = new Date(T0 + 86_400_000).toISOString().slice(0, 10);

/**
 * The ledger's test rows with the figures the rollups treat at their edges: slots left
 * below 0, in every histogram bucket, past the last bound and beyond int2; no deploy or
 * several; a row shown with no square taken.
 */
function edgeRows(id: number, random: () => number): MinerRound[] {
  return roundRows(id, settledAt(id).toISOString(), random).map((r, k) => ({
    ...r,
    slotsLeft: (id + k) % 97 === 0 ? 40_000 : ((id * 31 + k * 17) % 420) - 10,
    slotsLeftLast: (id + k) % 97 === 0 ? -40_000 : ((id * 7 + k) % 260) - 3,
    deploys: (id + k) % 5,
    ...((id + k) % 23 === 0 && r.squares !== null ? { squares: [], amounts: [], deployed: 0 } : {}),
  }));
}

const entries: LedgerEntry[] = [];
{
  const random = prng(11);
  for (let id = 0; id < ROUNDS; id++) entries.push({ round: { id, settledAt: settledAt(id), productionCost: 40_000_000 }, miners: MinerRows.of(edgeRows(id, random)) });
}
/** Rows of rounds [from, to). */
const rowsOf = (from: number, to: number) => entries.slice(from, to).reduce((n, e) => n + e.miners.length, 0);
const ROWS = rowsOf(0, ROUNDS);

const chunks = (from: number, to: number, size: number): LedgerEntry[][] =>
  Array.from({ length: Math.ceil((to - from) / size) }, (_, i) => entries.slice(from + i * size, Math.min(to, from + (i + 1) * size)));

/** Every row of the three rollup tables, wallets by address (ids differ between databases), every column as PostgreSQL prints it. */
async function rollups(pool: Pool): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [table, key] of [['miner_days', 'day'], ['miner_hours', 'hour'], ['miner_totals', null]] as const) {
    const { rows } = await pool.query<{ line: string }>(
      `SELECT encode(w.address, 'hex') || ' ' || (to_jsonb(t) - 'miner_id')::text AS line
         FROM indexer.${table} t JOIN indexer.wallets w ON w.id = t.miner_id ORDER BY w.address${key === null ? '' : `, t.${key}`}`,
    );
    out[table] = rows.map((r) => r.line);
  }
  return out;
}

async function listed(pool: Pool): Promise<number> {
  return (await pool.query<{ n: number }>('SELECT count(*)::int4 AS n FROM indexer.miner_unfolded_rounds')).rows[0]!.n;
}

async function recentBelow(pool: Pool, round: number): Promise<number> {
  return (await pool.query<{ n: number }>('SELECT count(*)::int4 AS n FROM indexer.miner_rounds_recent WHERE round_id < $1', [round])).rows[0]!.n;
}

describe('miner rows folded into the rollups after they are written', () => {
  const dbs: TestDatabase[] = [];
  const pools: Pool[] = [];
  /** The rollups of every round written with its rows: what a fold must give. */
  let expected: Record<string, string[]>;
  let immediate: Pool;

  async function database(): Promise<{ pool: Pool; writer: MinerLedgerWriter }> {
    const db = await createTestDatabase();
    dbs.push(db);
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    const pool = createPool(db.url);
    pools.push(pool);
    const writer = new MinerLedgerWriter(pool, () => now);
    await writer.setOrePrices([{ day: PRICED_DAY, lamportsPerOre: 250_000_000 }]);
    return { pool, writer };
  }

  beforeAll(async () => {
    const { pool, writer } = await database();
    immediate = pool;
    for (const chunk of chunks(0, ROUNDS, 40)) await writer.writeRounds(chunk);
    expected = await rollups(pool);
  }, 120_000);

  afterAll(async () => {
    for (const p of pools) await p.end();
    for (const db of dbs) await db.drop();
  });

  it('gives the rollups writing each round with its rows gives, counting a round only once folded, and a second fold adds nothing', async () => {
    const { pool, writer } = await database();
    expect(expected['miner_hours']!.length).toBeGreaterThan(0);
    expect(expected['miner_days']!.length).toBeGreaterThan(expected['miner_totals']!.length);

    let folded = 0;
    for (const [i, chunk] of chunks(0, 1000, 100).entries()) {
      await writer.writeRounds(chunk, { deferRollups: true });
      if (i === 4) folded += await writer.foldRollups();
    }
    // Rounds 500..999 are written but not folded: their rows are stored, the rollups leave them out.
    const { rows } = await pool.query<{ rounds: number }>('SELECT sum(rounds)::int4 AS rounds FROM indexer.miner_totals');
    expect(rows[0]!.rounds).toBe(rowsOf(0, 500));
    expect(await listed(pool)).toBe(500);
    // A round written with its rollups among the deferred ones (the live path beside the history fill).
    await writer.writeRounds(entries.slice(1000, 1001));
    for (const chunk of chunks(1001, ROUNDS, 100)) await writer.writeRounds(chunk, { deferRollups: true });
    // Another writer (after a restart) takes what the first left listed.
    folded += await new MinerLedgerWriter(pool, () => now).foldRollups();

    expect(folded).toBe(ROWS - rowsOf(1000, 1001));
    expect(await listed(pool)).toBe(0);
    expect(await rollups(pool)).toEqual(expected);
    // The histogram as the rows' slots give it in TypeScript, apart from both ways of summing it in SQL.
    const hist = new Map<string, number[]>();
    for (const e of entries.slice(0, ROUNDS)) {
      for (const m of e.miners.rows()) {
        const h = hist.get(m.address) ?? new Array<number>(SLOT_BUCKET_COUNT).fill(0);
        const slots = slotsOf(m);
        h[slots.first]! += 1;
        h[slots.last]! += slots.laterDeploys;
        hist.set(m.address, h);
      }
    }
    const { rows: totals } = await pool.query<{ address: Buffer; slots_hist: number[] }>(
      'SELECT w.address, t.slots_hist FROM indexer.miner_totals t JOIN indexer.wallets w ON w.id = t.miner_id',
    );
    expect(new Map(totals.map((t) => [bs58.encode(t.address), t.slots_hist]))).toEqual(hist);
    expect(await writer.foldRollups()).toBe(0);
    expect(await rollups(pool)).toEqual(expected);
  });

  it('adds the sums a writer made as it wrote its rounds, and reads back only the rows of rounds others listed', async () => {
    const { pool, writer } = await database();
    // Another writer's rounds, listed and left (a fill that stopped); then this writer's, hours of the last 48 among them.
    const other = new MinerLedgerWriter(pool, () => now);
    for (const chunk of chunks(0, 600, 100)) await other.writeRounds(chunk, { deferRollups: true });
    for (const chunk of chunks(600, ROUNDS, 100)) await writer.writeRounds(chunk, { deferRollups: true });
    // Rows of one of this writer's rounds gone from the table: a fold that read them back would miss them.
    const gone = 2900;
    await pool.query('DELETE FROM indexer.miner_rounds_recent WHERE round_id = $1', [gone]);
    expect(await writer.foldRollups()).toBe(ROWS);
    expect(await listed(pool)).toBe(0);
    expect(await rollups(pool)).toEqual(expected);
    expect(await other.foldRollups()).toBe(0);
    expect(await rollups(pool)).toEqual(expected);
  });

  it('keeps its sums through a fold that failed', async () => {
    const { pool } = await database();
    const db = dbs[dbs.length - 1]!;
    const impatient = new URL(db.url);
    impatient.searchParams.set('options', '-c lock_timeout=300');
    const impatientPool = createPool(impatient.toString());
    pools.push(impatientPool);
    const writer = new MinerLedgerWriter(impatientPool, () => now);
    for (const chunk of chunks(0, 2000, 100)) await writer.writeRounds(chunk, { deferRollups: true });
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE indexer.miner_totals IN EXCLUSIVE MODE');
      await expect(writer.foldRollups()).rejects.toThrow(/lock/);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await listed(pool)).toBe(2000);
    // Written after the failed fold: its sums join those kept. A round's rows gone: only the sums still have them.
    for (const chunk of chunks(2000, ROUNDS, 100)) await writer.writeRounds(chunk, { deferRollups: true });
    await pool.query('DELETE FROM indexer.miner_rounds_recent WHERE round_id = 1500');
    expect(await writer.foldRollups()).toBe(ROWS);
    expect(await rollups(pool)).toEqual(expected);
  });

  it("drops a writer's sums of rounds another fold took from their rows", async () => {
    const { pool, writer } = await database();
    for (const chunk of chunks(0, 2000, 100)) await writer.writeRounds(chunk.slice(0, 60), { deferRollups: true });
    for (const chunk of chunks(0, 2000, 100)) await new MinerLedgerWriter(pool, () => now).writeRounds(chunk.slice(60), { deferRollups: true });
    expect(await new MinerLedgerWriter(pool, () => now).foldRollups()).toBe(rowsOf(0, 2000));
    // Its sums of the rounds taken are still held when it writes the next rounds: those are folded without them.
    for (const chunk of chunks(2000, ROUNDS, 100)) await writer.writeRounds(chunk, { deferRollups: true });
    expect(await writer.foldRollups()).toBe(rowsOf(2000, ROUNDS));
    expect(await rollups(pool)).toEqual(expected);
  });

  it('packs no row of a round not yet folded, and packs it once folded, losing nothing', async () => {
    const { pool, writer } = await database();
    for (const chunk of chunks(0, 720, 100)) await writer.writeRounds(chunk, { deferRollups: true });
    await writer.foldRollups();
    for (const chunk of chunks(720, ROUNDS, 100)) await writer.writeRounds(chunk, { deferRollups: true });
    const unfoldedInBlock = rowsOf(720, BLOCK_ROUNDS);

    // Only the first block is closed; of it, only the folded rounds' rows are packed.
    expect(await writer.compact(ROUNDS - 1)).toBe(rowsOf(0, 720));
    expect(await recentBelow(pool, BLOCK_ROUNDS)).toBe(unfoldedInBlock);
    await writer.foldRollups();
    expect(await rollups(pool)).toEqual(expected);
    expect(await writer.compact(ROUNDS - 1)).toBe(unfoldedInBlock);
    expect(await recentBelow(pool, BLOCK_ROUNDS)).toBe(0);
    expect(await rollups(pool)).toEqual(expected);

    // Every wallet's ledger reads as the one written with its rollups, nothing packed.
    const [packed, plain] = [new MinerLedgerStore(pool), new MinerLedgerStore(immediate)];
    for (const w of wallets) expect(await packed.rounds(w, { limit: 5000 })).toEqual(await plain.rounds(w, { limit: 5000 }));
  });

  it('leaves the rounds of a fold that failed listed for the next, and two folds at once count every row once', async () => {
    const { pool, writer } = await database();
    for (const chunk of chunks(0, ROUNDS, 100)) await writer.writeRounds(chunk, { deferRollups: true });
    const db = dbs[dbs.length - 1]!;
    const impatient = new URL(db.url);
    impatient.searchParams.set('options', '-c lock_timeout=300');
    const impatientPool = createPool(impatient.toString());
    pools.push(impatientPool);

    // The rollups held by another transaction: a fold that cannot wait fails and rolls back; two that can both wait.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE indexer.miner_totals IN EXCLUSIVE MODE');
      await expect(new MinerLedgerWriter(impatientPool, () => now).foldRollups()).rejects.toThrow(/lock/);
      expect(await listed(pool)).toBe(ROUNDS);
      const both = Promise.all([writer.foldRollups(), new MinerLedgerWriter(pool, () => now).foldRollups()]);
      // Both have started, and the one that claimed the rounds waits for the lock.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await holder.query('COMMIT');
      expect((await both).sort((a, b) => a - b)).toEqual([0, ROWS]);
    } finally {
      holder.release();
    }
    expect(await listed(pool)).toBe(0);
    expect(await rollups(pool)).toEqual(expected);
  });
});
