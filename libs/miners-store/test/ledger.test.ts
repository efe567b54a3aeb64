/**
 * The ledger through PostgreSQL: rows written per round come back the same from every
 * read, before and after their blocks are packed (also when history lands in a packed
 * block late), the summary and the top miners agree with a plain fold of the rows, and a
 * round is written once.
 */
import { randomBytes } from 'node:crypto';
import { MinerRows } from '@gridlab/chain';
import type { MinerRound } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import bs58 from 'bs58';
import { BLOCK_ROUNDS, MinerLedgerStore, MinerLedgerWriter, type LedgerEntry } from '../src';
import { prng, roundRows, T0, wallets } from './rows';

describe('the miner ledger in PostgreSQL', () => {
  let db: TestDatabase;
  let pool: Pool;
  let writer: MinerLedgerWriter;
  let store: MinerLedgerStore;
  const all: MinerRound[] = [];
  // Rounds 0..3,100 except 1,500..1,520 (filled "late", after compaction) and the
  // rounds of one hour each day, settled a minute apart from T0.
  const ROUNDS = 3100;
  const late = new Set(Array.from({ length: 21 }, (_, i) => 1500 + i));
  const settledAt = (id: number) => new Date(T0 + id * 60_000);
  const now = settledAt(ROUNDS);

  beforeAll(async () => {
    db = await createTestDatabase();
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    pool = createPool(db.url);
    writer = new MinerLedgerWriter(pool, () => now);
    store = new MinerLedgerStore(pool);
    const random = prng(7);
    // Chunks of seven rounds in one write (as the history fill writes), every hundredth round alone (as the live path).
    let chunk: LedgerEntry[] = [];
    for (let id = 0; id < ROUNDS; id++) {
      const rows = roundRows(id, settledAt(id).toISOString(), random);
      all.push(...rows);
      if (late.has(id)) continue;
      if (id % 100 === 0) await writer.writeRound({ id, settledAt: settledAt(id), productionCost: 50_000_000 }, MinerRows.of(rows));
      else chunk.push({ round: { id, settledAt: settledAt(id), productionCost: 50_000_000 }, miners: MinerRows.of(rows) });
      if (chunk.length === 7) {
        await writer.writeRounds(chunk);
        chunk = [];
      }
    }
    await writer.writeRounds(chunk);
  }, 120_000);
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  const ledgerOf = (address: string, stored: (id: number) => boolean) =>
    all.filter((r) => r.address === address && stored(r.roundId)).sort((a, b) => b.roundId - a.roundId);

  it('writes a round once', async () => {
    expect(await writer.writeRound({ id: 5, settledAt: settledAt(5), productionCost: null }, MinerRows.of(roundRows(5, settledAt(5).toISOString(), prng(1))))).toBe(false);
    expect(await writer.writeRounds([5, 100].map((id) => ({ round: { id, settledAt: settledAt(id), productionCost: null }, miners: MinerRows.of(roundRows(id, settledAt(id).toISOString(), prng(1))) })))).toEqual(new Set());
  });

  it('pages a wallet\'s ledger newest first, every row as written', async () => {
    const expected = ledgerOf(wallets[1]!, (id) => !late.has(id));
    const got: MinerRound[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await store.rounds(wallets[1]!, { limit: 250, ...(before === undefined ? {} : { before }) });
      got.push(...page!.rounds);
      if (page!.nextBefore === null) break;
      before = page!.nextBefore;
    }
    expect(got).toEqual(expected);
  });

  it('answers null for a wallet it never saw, and for a malformed address', async () => {
    expect(await store.summary(bs58.encode(randomBytes(32)), now)).toBeNull();
    expect(await store.rounds('not-an-address', { limit: 5 })).toBeNull();
  });

  it('sums the summary windows as a plain fold of the rows does', async () => {
    const w = wallets[2]!;
    const fold = (rows: MinerRound[]) => {
      const known = rows.filter((r) => r.solBack !== null && r.deployed !== null);
      const sum = (f: (r: MinerRound) => number) => known.reduce((a, r) => a + f(r), 0);
      return {
        rounds: rows.length,
        unknownRounds: rows.length - known.length,
        deployed: sum((r) => r.deployed!),
        solBack: sum((r) => r.solBack!),
        networkFee: rows.reduce((a, r) => a + (r.networkFee ?? 0), 0),
        priorityFee: rows.reduce((a, r) => a + (r.priorityFee ?? 0), 0),
        oreSplit: sum((r) => r.oreSplit!),
        wins: known.filter((r) => r.heldWinningSquare).length,
        firstRound: Math.min(...rows.map((r) => r.roundId)),
        lastRound: Math.max(...rows.map((r) => r.roundId)),
      };
    };
    const mine = ledgerOf(w, (id) => !late.has(id));
    const summary = await store.summary(w, now);
    expect(summary!.all).toMatchObject(fold(mine));
    const hourAgo = Math.floor(now.getTime() / 3_600_000) - 24;
    expect(summary!['24h']).toMatchObject(fold(mine.filter((r) => Math.floor(Date.parse(r.settledAt) / 3_600_000) > hourAgo)));
    expect(summary!['24h'].rounds).toBeLessThan(summary!.all.rounds);
  });

  it('ranks the top miners by net and by rounds as the rows say', async () => {
    const stored = all.filter((r) => !late.has(r.roundId));
    const byWallet = new Map<string, { net: number; rounds: number }>();
    for (const r of stored) {
      const s = byWallet.get(r.address) ?? { net: 0, rounds: 0 };
      s.rounds++;
      if (r.solBack !== null && r.deployed !== null) s.net += r.solBack - r.deployed;
      s.net -= r.networkFee! + r.priorityFee! + r.executorFee!;
      byWallet.set(r.address, s);
    }
    const top = await store.top('net', 'all', 3, now);
    const expected = [...byWallet.entries()].sort((a, b) => b[1].net - a[1].net).slice(0, 3);
    expect(top.miners.map((m) => [m.address, m.net])).toEqual(expected.map(([a, s]) => [a, s.net]));
    const byRounds = await store.top('rounds', '7d', 6, now);
    expect(byRounds.miners.map((m) => m.rounds)).toEqual([...byWallet.values()].map((s) => s.rounds).sort((a, b) => b - a));
  });

  it("serves a window's top miners from the lists summed last, as they were then", async () => {
    const live = await store.top('deployed', '30d', 4, now);
    expect(live.asOf).toBe(now.toISOString());
    const at = new Date(now.getTime() + 1000);
    await writer.refreshTops(at);
    const served = await store.top('deployed', '30d', 4, now);
    expect(served).toEqual({ ...live, asOf: at.toISOString() });
    // A round written after the sums shows in them only once they are summed again.
    const id = 80_000;
    const fresh = bs58.encode(randomBytes(32));
    const whale = { ...roundRows(id, settledAt(ROUNDS - 1).toISOString(), prng(5))[0]!, address: fresh, signer: fresh, amounts: [9e15], squares: [0], deployed: 9e15, solBack: 0 };
    await writer.writeRound({ id, settledAt: settledAt(ROUNDS - 1), productionCost: null }, MinerRows.of([whale]));
    expect((await store.top('deployed', '30d', 1, now)).miners[0]!.address).toBe(live.miners[0]!.address);
    await writer.refreshTops(at);
    expect((await store.top('deployed', '30d', 1, now)).miners[0]).toMatchObject({ address: whale.address, deployed: expect.any(Number) });
  });

  it('reads the same after packing closed blocks, and merges history filled into a packed block late', async () => {
    const before = await store.rounds(wallets[3]!, { limit: 5000 });
    const round = await store.roundMiners(1000);
    const packed = await writer.compact(ROUNDS - 1);
    expect(packed).toBeGreaterThan(0);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int4 AS n FROM indexer.miner_rounds_recent WHERE round_id < $1', [BLOCK_ROUNDS]);
    expect(rows[0]!.n).toBe(0);
    expect(await store.rounds(wallets[3]!, { limit: 5000 })).toEqual(before);
    expect(await store.roundMiners(1000)).toEqual(round);
    // The late rounds arrive now, inside the packed block [1440, 2880).
    for (const id of late) await writer.writeRound({ id, settledAt: settledAt(id), productionCost: null }, MinerRows.of(all.filter((r) => r.roundId === id)));
    const merged = await store.rounds(wallets[3]!, { limit: 5000 });
    expect(merged!.rounds).toEqual(ledgerOf(wallets[3]!, () => true));
    await writer.compact(ROUNDS - 1);
    expect(await store.rounds(wallets[3]!, { limit: 5000 })).toEqual(merged);
  });

  it('exports a whole ledger in batches, newest first', async () => {
    const rows: MinerRound[] = [];
    for await (const batch of (await store.exportRounds(wallets[4]!))!) rows.push(...batch);
    expect(rows).toEqual(ledgerOf(wallets[4]!, () => true));
    const below: MinerRound[] = [];
    for await (const batch of (await store.exportRounds(wallets[4]!, 2000))!) below.push(...batch);
    expect(below).toEqual(ledgerOf(wallets[4]!, (id) => id < 2000));
    expect((await store.rounds(wallets[4]!, { before: Number.MAX_SAFE_INTEGER, limit: 3 }))!.rounds).toEqual(rows.slice(0, 3));
  });

  it("lists a round's miners in the order they were written", async () => {
    const got = await store.roundMiners(1505);
    expect(got).toEqual({ roundId: 1505, count: got!.miners.length, miners: all.filter((r) => r.roundId === 1505) });
    expect(await store.roundMiners(999_999)).toBeNull();
    // The API takes ids up to 2^53; the ledger's are int4.
    expect(await store.roundMiners(Number.MAX_SAFE_INTEGER)).toBeNull();
  });

  it("values a round's ORE at the operator's price of its day, else at the round's production cost", async () => {
    const w = bs58.encode(randomBytes(32));
    const row = (roundId: number): MinerRound => ({ ...roundRows(roundId, settledAt(roundId).toISOString(), prng(3)).find((r) => r.solBack !== null)!, address: w, signer: w, oreTopMiner: 100_000_000_000, oreSplit: 0, oreMotherlode: 0 });
    const day = new Date(T0 + 40 * 86_400_000).toISOString().slice(0, 10);
    await writer.setOrePrices([{ day, lamportsPerOre: 300_000_000 }]);
    const priced = 40 * 1440 + 7;
    await writer.writeRound({ id: priced, settledAt: settledAt(priced), productionCost: 50_000_000 }, MinerRows.of([row(priced)]));
    const costed = 41 * 1440 + 7;
    await writer.writeRound({ id: costed, settledAt: settledAt(costed), productionCost: 50_000_000 }, MinerRows.of([row(costed)]));
    // One ORE at 0.3 SOL, then one at the production cost of 0.05 SOL.
    expect((await store.summary(w, now))!.all.oreValue).toBe(300_000_000 + 50_000_000);
  });

  it('gives each new wallet one id when two writers (two replicas) write rounds naming it at once, every row its own wallet and signer', async () => {
    const fresh = Array.from({ length: 12 }, () => bs58.encode(randomBytes(32)));
    // Rounds 90,000.. in two chunks, one a writer, every round naming the same new wallets in another order.
    const entry = (id: number): LedgerEntry => {
      const rows = roundRows(id, settledAt(id).toISOString(), prng(id)).map((r, k) => ({ ...r, address: fresh[(id + k) % 6]!, signer: fresh[6 + ((id + 2 * k) % 6)]! }));
      return { round: { id, settledAt: settledAt(id), productionCost: null }, miners: MinerRows.of(rows) };
    };
    const [a, b] = [[90_000, 90_002, 90_004], [90_001, 90_003, 90_005]].map((ids) => ids.map(entry));
    const written = await Promise.all([new MinerLedgerWriter(pool, () => now).writeRounds(a!), new MinerLedgerWriter(pool, () => now).writeRounds(b!)]);
    expect(written.map((w) => [...w].sort())).toEqual([[90_000, 90_002, 90_004], [90_001, 90_003, 90_005]]);
    const { rows: ids } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM indexer.wallets WHERE address = ANY($1::bytea[])', [fresh.map((w) => Buffer.from(bs58.decode(w)))]);
    expect(ids[0]!.n).toBe(fresh.length);
    for (const e of [...a!, ...b!]) {
      const got = (await store.roundMiners(e.round.id))!.miners;
      expect(got.map((m) => [m.address, m.signer])).toEqual(e.miners.rows().map((m) => [m.address, m.signer]));
    }
    // Each wallet's rollups count every round it played, once.
    const played = [...a!, ...b!].reduce((n, e) => n + e.miners.rows().filter((m) => m.address === fresh[0]).length, 0);
    expect((await store.summary(fresh[0]!, now))!.all.rounds).toBe(played);
  });

  it('forgets the id of a wallet whose first write rolled back', async () => {
    const w = bs58.encode(randomBytes(32));
    const id = 70_000;
    const good = { ...roundRows(id, settledAt(id).toISOString(), prng(4))[0]!, address: w, signer: w };
    // A row the table cannot hold (a deploy count beyond int2) fails the write after the wallet was inserted.
    await expect(writer.writeRound({ id, settledAt: settledAt(id), productionCost: null }, MinerRows.of([{ ...good, deploys: 1e6 }]))).rejects.toThrow();
    expect(await store.summary(w, now)).toBeNull();
    expect(await writer.writeRound({ id, settledAt: settledAt(id), productionCost: null }, MinerRows.of([good]))).toBe(true);
    expect((await store.roundMiners(id))!.miners.map((m) => [m.address, m.signer])).toEqual([[w, w]]);
  });

  it('draws the daily series with running totals', async () => {
    const perf = await store.performance(wallets[0]!, 'day');
    const rows = ledgerOf(wallets[0]!, () => true);
    const known = rows.filter((r) => r.solBack !== null && r.deployed !== null);
    const fees = rows.reduce((a, r) => a + r.networkFee! + r.priorityFee! + r.executorFee!, 0);
    expect(perf!.points.at(-1)!.cumulativeNet).toBe(known.reduce((a, r) => a + r.solBack! - r.deployed!, 0) - fees);
    expect(perf!.points.map((p) => p.start)).toEqual([...perf!.points.map((p) => p.start)].sort());
  });
});
