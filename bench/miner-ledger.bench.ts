/**
 * Every miner's ledger at mainnet's scale: 30 days of mainnet-sized miner-rounds (~400 a
 * round, 17.3 million; MINER_BENCH_ROWS scales it down) loaded as the indexer and its
 * compaction leave them (closed days packed per wallet in weekly partitions, the last day
 * as rows, the rollups), then the production reads and writes measured on it:
 * bytes a row on disk, a wallet's summary, its ledger export against a raw COPY of the
 * same rows from a one-row-per-miner-round table, the top miners of every window and sort,
 * one round's write with its rollups, and the compaction of a day. MINER_BENCH_KEEP_DB=1
 * keeps the database (its URL is printed) to look into a query by hand.
 */
import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MinerRows } from '@gridlab/chain';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { MinerLedgerStore, MinerLedgerWriter, ndjsonLine } from '@gridlab/miners-store';
import {
  BLOCK_ROUNDS,
  FLAG_KNOWN,
  PARTITION_ROUNDS,
  ROLLUP_COLUMNS,
  STORED_COLUMN_LIST,
  addRollup,
  emptyRollup,
  encodeBlock,
  rollupOf,
  type Rollup,
  type StoredRow,
} from '@gridlab/miners-store/bulk';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { createTestDatabase } from '@gridlab/testing';
import bs58 from 'bs58';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { CopyWriter, EXECUTORS, ROUNDS_PER_DAY, Rng, WHALES, makeRound, makeWallets, placeWallets, type Row } from './miner-ledger-data';
import { percentile } from './stats';
import type { Bench } from './types';

const DAYS = 30;
const ROUNDS = DAYS * ROUNDS_PER_DAY;
const ROWS = Number(process.env['MINER_BENCH_ROWS'] ?? 400 * ROUNDS);
const WALLETS = Math.max(WHALES * 4, Math.round((30_000 * ROWS) / (400 * ROUNDS)));
const T0 = Date.parse('2026-10-01T00:00:00Z');
const ONE_ORE = 100_000_000_000;
/** Lamports per ORE the synthetic rounds are valued at. */
const PRICE = 400_000_000;

const settledAt = (round: number): Date => new Date(T0 + round * 60_000);
const dayOf = (round: number): number => Math.floor(settledAt(round).getTime() / 86_400_000);
const hourOf = (round: number): number => Math.floor(settledAt(round).getTime() / 3_600_000);

/** A synthetic row in the stored form: network fee 5,000 a transaction, the rest priority; executors take 2,000. */
function stored(r: Row): StoredRow {
  const known = r.solBack !== null;
  const ore = r.ore === null ? null : r.ore + (r.oreMotherlode ?? 0);
  return {
    roundId: r.round,
    minerId: r.miner,
    signerId: r.signer,
    squares: r.squares,
    amount: r.amount,
    amounts: r.amounts,
    solBack: r.solBack,
    ore: r.ore,
    oreMotherlode: r.oreMotherlode,
    adminFee: r.adminFee,
    protocolFee: r.protocolFee,
    oreValue: ore === null ? null : Math.floor((ore * PRICE) / ONE_ORE),
    networkFee: r.txFee === null ? null : Math.min(5000, r.txFee),
    priorityFee: r.txFee === null ? null : Math.max(0, r.txFee - 5000),
    executorFee: r.strategy === -1 ? 0 : 2000,
    checkpointDeposit: 0,
    slotsLeft: r.slotsLeft,
    slotsLeftLast: r.slotsLeftLast,
    deploys: r.deploys,
    strategy: r.strategy,
    flags: r.flags | (known ? FLAG_KNOWN : 0),
  };
}

/** Binary COPY tuples of `miner_rounds_recent`'s columns (STORED_COLUMN_LIST's order). */
function writeStored(c: CopyWriter, r: StoredRow): void {
  c.fields(21);
  for (const v of [r.amount, r.solBack, r.ore, r.oreMotherlode, r.adminFee, r.protocolFee, r.oreValue]) c.int8(v);
  for (const v of [r.roundId, r.minerId, r.squares, r.signerId, r.networkFee, r.priorityFee, r.executorFee, r.checkpointDeposit]) c.int4(v);
  for (const v of [r.slotsLeft, r.slotsLeftLast, r.deploys, r.strategy, r.flags]) c.int2(v);
  if (r.amounts === null) c.bytes(null);
  else {
    const b = Buffer.alloc(8 * r.amounts.length);
    r.amounts.forEach((a, i) => b.writeBigInt64BE(BigInt(a), 8 * i));
    c.bytes(b);
  }
}

/** Streams COPY FROM STDIN from a generator of binary chunks (header and trailer included). */
async function copyIn(pool: Pool, sql: string, chunks: () => Generator<Buffer>): Promise<void> {
  const client = await pool.connect();
  try {
    await pipeline(Readable.from(chunks()), client.query(copyFrom(sql)));
  } finally {
    client.release();
  }
}

async function copyOutBytes(pool: Pool, sql: string): Promise<number> {
  const client = await pool.connect();
  let bytes = 0;
  try {
    await pipeline(
      client.query(copyTo(sql)),
      new Writable({
        write(chunk: Buffer, _e, cb) {
          bytes += chunk.length;
          cb();
        },
      }),
    );
  } finally {
    client.release();
  }
  return bytes;
}

function rollupTuple(c: CopyWriter, key: number | null, minerId: number, r: Rollup): void {
  c.fields(ROLLUP_COLUMNS.length + (key === null ? 1 : 2));
  if (key !== null) c.int4(key);
  c.int4(minerId);
  for (const v of [r.rounds, r.deploys, r.wins, r.topWins, r.motherlodeHits, r.unknown, r.firstRound, r.lastRound]) c.int4(v);
  for (const v of [r.deployed, r.solBack, r.adminFee, r.protocolFee, r.networkFee, r.priorityFee, r.executorFee, r.checkpointDeposits, r.oreTop, r.oreSplit, r.oreMotherlode, r.oreValue]) c.int8(v);
  // int4[]: ndim 1, no nulls, element oid 23, then one dimension (length, lower bound 1) and the elements.
  const hist = Buffer.alloc(20 + 8 * r.slotsHist.length);
  hist.writeInt32BE(1, 0);
  hist.writeInt32BE(0, 4);
  hist.writeInt32BE(23, 8);
  hist.writeInt32BE(r.slotsHist.length, 12);
  hist.writeInt32BE(1, 16);
  r.slotsHist.forEach((v, i) => {
    hist.writeInt32BE(4, 20 + 8 * i);
    hist.writeInt32BE(v, 24 + 8 * i);
  });
  c.bytes(hist);
}

const bench: Bench = async () => {
  const db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  const pool = createPool(db.url, { max: 4 });
  try {
    const scale = { rows: ROWS, rounds: ROUNDS, wallets: WALLETS };
    const rng = new Rng(20261129);
    const wallets = makeWallets(rng, scale);
    const placed = placeWallets(rng, wallets, scale);
    const walletCount = WALLETS + EXECUTORS + 1;
    const addresses = Array.from({ length: walletCount }, () => randomBytes(32));
    await copyIn(pool, 'COPY indexer.wallets (id, address) FROM STDIN (FORMAT binary)', function* () {
      const c = new CopyWriter();
      for (let id = 1; id <= walletCount; id++) {
        c.fields(2);
        c.int4(id);
        c.bytes(addresses[id - 1]!);
      }
      c.trailer();
      yield c.take();
    });
    await pool.query(`SELECT setval(pg_get_serial_sequence('indexer.wallets', 'id'), ${walletCount})`);
    // The same rows one per miner-round, in the order they arrive (round after round): what a raw COPY of a wallet's rows reads.
    await pool.query('CREATE TABLE indexer.bench_rows (LIKE indexer.miner_rounds_recent)');
    for (let from = 0; from < ROUNDS; from += PARTITION_ROUNDS) {
      await pool.query(`CREATE TABLE indexer.miner_blocks_r${from} PARTITION OF indexer.miner_blocks FOR VALUES FROM (${from}) TO (${from + PARTITION_ROUNDS}) WITH (toast_tuple_target = 128)`);
    }
    const days = new Map<string, Rollup>();
    const hours = new Map<string, Rollup>();
    const totals = new Map<number, Rollup>();
    const lastHour = hourOf(ROUNDS - 1);
    let rows = 0;
    const loadStarted = performance.now();
    for (let day = 0; day < DAYS; day++) {
      const byMiner = new Map<number, StoredRow[]>();
      const dayRows: StoredRow[] = [];
      const sets: { round: number; miners: number[] }[] = [];
      for (let round = day * ROUNDS_PER_DAY; round < (day + 1) * ROUNDS_PER_DAY; round++) {
        const ids = placed.wallet.subarray(placed.start[round], placed.start[round + 1]);
        const made = makeRound(rng, wallets, round, ids).map(stored);
        sets.push({ round, miners: made.map((r) => r.minerId) });
        for (const r of made) {
          dayRows.push(r);
          let list = byMiner.get(r.minerId);
          if (list === undefined) byMiner.set(r.minerId, (list = []));
          list.push(r);
          const contribution = rollupOf(r);
          const dk = `${r.minerId}:${dayOf(round)}`;
          days.set(dk, addRollup(days.get(dk) ?? emptyRollup(), contribution));
          totals.set(r.minerId, addRollup(totals.get(r.minerId) ?? emptyRollup(), contribution));
          if (hourOf(round) > lastHour - 48) {
            const hk = `${r.minerId}:${hourOf(round)}`;
            hours.set(hk, addRollup(hours.get(hk) ?? emptyRollup(), contribution));
          }
        }
      }
      rows += dayRows.length;
      const tuples = function* (): Generator<Buffer> {
        const c = new CopyWriter();
        for (const r of dayRows) {
          writeStored(c, r);
          if (c.o > 1 << 20) yield c.take();
        }
        c.trailer();
        yield c.take();
      };
      await copyIn(pool, `COPY indexer.bench_rows (${STORED_COLUMN_LIST}) FROM STDIN (FORMAT binary)`, tuples);
      // Closed days packed as the compaction leaves them; the last day still as rows.
      if (day < DAYS - 1) {
        await copyIn(pool, 'COPY indexer.miner_blocks (block_start, miner_id, rounds, data) FROM STDIN (FORMAT binary)', function* () {
          const c = new CopyWriter();
          for (const [minerId, list] of byMiner) {
            c.fields(4);
            c.int4(day * ROUNDS_PER_DAY);
            c.int4(minerId);
            c.int2(list.length);
            c.bytes(encodeBlock(day * ROUNDS_PER_DAY, list));
            if (c.o > 1 << 20) yield c.take();
          }
          c.trailer();
          yield c.take();
        });
      } else {
        await copyIn(pool, `COPY indexer.miner_rounds_recent (${STORED_COLUMN_LIST}) FROM STDIN (FORMAT binary)`, tuples);
      }
      await pool.query(
        `INSERT INTO indexer.miner_round_sets (round_id, settled_at, miner_ids)
         SELECT r, to_timestamp(${T0 / 1000} + r * 60), string_to_array(m, ',')::int4[] FROM unnest($1::int4[], $2::text[]) AS u(r, m)`,
        [sets.map((s) => s.round), sets.map((s) => s.miners.join(','))],
      );
    }
    for (const [table, map, keyed] of [['miner_days', days, true], ['miner_hours', hours, true], ['miner_totals', totals, false]] as const) {
      const column = table === 'miner_days' ? 'day, ' : table === 'miner_hours' ? 'hour, ' : '';
      await copyIn(pool, `COPY indexer.${table} (${column}miner_id, ${ROLLUP_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`, function* () {
        const c = new CopyWriter();
        for (const [key, r] of map as Map<string | number, Rollup>) {
          if (keyed) {
            const [minerId, bucket] = String(key).split(':').map(Number) as [number, number];
            rollupTuple(c, bucket, minerId, r);
          } else rollupTuple(c, null, key as number, r);
          if (c.o > 1 << 20) yield c.take();
        }
        c.trailer();
        yield c.take();
      });
    }
    await pool.query('CREATE INDEX ON indexer.bench_rows (miner_id, round_id)');
    await pool.query('VACUUM ANALYZE');
    const loadSeconds = (performance.now() - loadStarted) / 1000;

    // Bytes a row: every ledger table (heap, TOAST, indexes), the comparison table left out.
    const { rows: sizes } = await pool.query<{ bytes: number }>(
      `SELECT sum(pg_total_relation_size(c.oid))::int8 AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'indexer' AND c.relkind IN ('r', 'p') AND (c.relname LIKE 'miner\\_%' OR c.relname = 'wallets')`,
    );
    const bytesPerRow = sizes[0]!.bytes / rows;

    const store = new MinerLedgerStore(pool);
    const now = settledAt(ROUNDS);
    const addressOf = (id: number): string => bs58.encode(addresses[id - 1]!);
    // Summaries: the 100 biggest wallets and 100 others, twice (the first pass warms the cache).
    const sample = [...Array.from({ length: 100 }, (_, i) => 1 + i), ...Array.from({ length: 100 }, () => WHALES + 1 + rng.int(WALLETS - WHALES))];
    const summaryMs: number[] = [];
    for (let pass = 0; pass < 2; pass++) {
      for (const id of sample) {
        const t = performance.now();
        await store.summary(addressOf(id), now);
        if (pass === 1) summaryMs.push(performance.now() - t);
      }
    }
    // The biggest wallet's whole ledger: the export as the gateway streams it (rows read,
    // decoded and serialised as NDJSON) against a raw COPY of the same rows from bench_rows.
    const { rows: biggest } = await pool.query<{ miner_id: number; n: number }>('SELECT miner_id, rounds AS n FROM indexer.miner_totals ORDER BY rounds DESC LIMIT 1');
    const whale = biggest[0]!;
    const exportMs: number[] = [];
    const rawMs: number[] = [];
    let exported = 0;
    for (let k = 0; k < 5; k++) {
      let t = performance.now();
      await copyOutBytes(pool, `COPY (SELECT ${STORED_COLUMN_LIST} FROM indexer.bench_rows WHERE miner_id = ${whale.miner_id} ORDER BY round_id DESC) TO STDOUT`);
      rawMs.push(performance.now() - t);
      t = performance.now();
      exported = 0;
      for await (const batch of (await store.exportRounds(addressOf(whale.miner_id)))!) {
        let text = '';
        for (const row of batch) text += ndjsonLine(row);
        exported += batch.length;
        if (text.length === 0) throw new Error('empty batch');
      }
      exportMs.push(performance.now() - t);
    }
    if (exported !== whale.n) throw new Error(`exported ${exported} rows of ${whale.n}`);
    const raw = percentile(rawMs, 50);
    const exp = percentile(exportMs, 50);
    // Top miners: every window and sort, five times each, after the indexer's minute sums; the slowest.
    const writer = new MinerLedgerWriter(pool, () => now);
    const refreshStarted = performance.now();
    await writer.refreshTops(now);
    const refreshMs = performance.now() - refreshStarted;
    let topWorst = 0;
    for (const window of ['24h', '7d', '30d', 'all'] as const) {
      for (const sort of ['net', 'ore', 'deployed', 'rounds'] as const) {
        for (let k = 0; k < 5; k++) {
          const t = performance.now();
          const top = await store.top(sort, window, 100, now);
          if (k > 0) topWorst = Math.max(topWorst, performance.now() - t);
          if (k === 4 && process.env['MINER_BENCH_KEEP_DB'] === '1') process.stderr.write(`top ${window} ${sort}: ${(performance.now() - t).toFixed(1)} ms\n`);
          if (top.miners.length === 0) throw new Error(`no top miners for ${window}/${sort}`);
        }
      }
    }
    // Writes: rounds after the loaded ones, 400 wallets each, through the indexer's writer.
    const writeMs: number[] = [];
    for (let k = 0; k < 30; k++) {
      const round = ROUNDS + k;
      const ids = Int32Array.from({ length: 400 }, (_, j) => 1 + ((j * 73 + k) % WALLETS));
      const miners = makeRound(rng, wallets, round, ids).map((r) => {
        const s = stored(r);
        const squares = [...Array(25).keys()].filter((q) => (s.squares! & (1 << q)) !== 0);
        const amounts = s.amounts === null ? squares.map(() => s.amount ?? 0) : [...s.amounts];
        const known = s.solBack !== null && s.amount !== null;
        return {
          roundId: round,
          address: addressOf(s.minerId),
          settledAt: settledAt(round).toISOString(),
          payoutRule: 'returns' as const,
          squares,
          amounts,
          deployed: amounts.reduce((a, b) => a + b, 0),
          deploys: s.deploys,
          signer: addressOf(s.signerId),
          automated: s.strategy !== -1,
          automationStrategy: s.strategy >= 0 ? s.strategy : null,
          slotsLeft: s.slotsLeft,
          slotsLeftLast: s.slotsLeftLast,
          solBack: known ? s.solBack : null,
          oreTopMiner: known ? ((s.flags & 2) === 0 ? s.ore : 0) : null,
          oreSplit: known ? ((s.flags & 2) !== 0 ? s.ore : 0) : null,
          oreMotherlode: known ? s.oreMotherlode : null,
          topMiner: known ? (s.flags & 1) !== 0 : null,
          heldWinningSquare: known ? (s.flags & 4) !== 0 : null,
          adminFee: known ? s.adminFee : null,
          protocolFee: known ? s.protocolFee : null,
          networkFee: s.networkFee,
          priorityFee: s.priorityFee,
          executorFee: s.executorFee,
          checkpointDeposit: 0,
          net: null,
        };
      });
      const rows = MinerRows.of(miners);
      const t = performance.now();
      await writer.writeRound({ id: round, settledAt: settledAt(round), productionCost: PRICE }, rows);
      writeMs.push(performance.now() - t);
    }
    // Compaction of the last loaded day (576,000 rows at full scale) once a later block is closed.
    const compactStarted = performance.now();
    const packed = await writer.compact(ROUNDS + 2 * BLOCK_ROUNDS);
    const compactSeconds = (performance.now() - compactStarted) / 1000;
    const fullScale = ROWS >= 400 * ROUNDS;
    const summaryP99 = percentile(summaryMs, 99);
    return [
      { key: 'miners.rows', label: `miner ledger: 30 days of mainnet-sized rows loaded (${WALLETS.toLocaleString('en')} wallets; ${Math.round(loadSeconds)} s to build)`, value: rows, unit: 'rows', ...(fullScale ? {} : { target: `${400 * ROUNDS} (MINER_BENCH_ROWS scaled it down)`, met: false }) },
      { key: 'miners.bytesPerRow', label: 'miner ledger: bytes a row on disk (heap, TOAST, indexes, rollups, wallets)', value: Math.round(bytesPerRow * 10) / 10, unit: 'bytes', target: '<= 80', met: bytesPerRow <= 80 },
      { key: 'miners.summaryP99', label: 'miner ledger: a wallet\'s summary, p99 (100 biggest and 100 other wallets, warm)', value: summaryP99, unit: 'ms', target: '< 20', met: summaryP99 < 20 },
      { key: 'miners.summaryP50', label: 'miner ledger: a wallet\'s summary, p50', value: percentile(summaryMs, 50), unit: 'ms' },
      {
        key: 'miners.exportRatio',
        label: `miner ledger: the biggest wallet's export (${whale.n.toLocaleString('en')} rows as NDJSON, ${Math.round(exp)} ms) ÷ a raw COPY of its rows (${Math.round(raw)} ms), as speed`,
        value: Math.round((raw / exp) * 100) / 100,
        unit: 'ratio',
        target: '>= 0.5',
        met: raw / exp >= 0.5,
      },
      { key: 'miners.topWorstMs', label: 'miner ledger: top miners as the gateway reads them, slowest of every window (24h, 7d, 30d, all) and sort', value: Math.round(topWorst * 10) / 10, unit: 'ms', target: '< 100', met: topWorst < 100 },
      { key: 'miners.topsRefreshMs', label: 'miner ledger: the top lists of 24 h, 7 d and 30 d summed again from the rollups (the indexer, each minute)', value: Math.round(refreshMs), unit: 'ms' },
      { key: 'miners.writeRoundP50', label: 'miner ledger: one round written (400 rows and their rollups), p50 of 30', value: percentile(writeMs, 50), unit: 'ms' },
      { key: 'miners.writeRoundP99', label: 'miner ledger: one round written, p99 of 30', value: percentile(writeMs, 99), unit: 'ms' },
      { key: 'miners.compactSeconds', label: `miner ledger: a day's rows packed into blocks (${packed.toLocaleString('en')} rows)`, value: Math.round(compactSeconds * 100) / 100, unit: 's' },
    ];
  } finally {
    await pool.end();
    if (process.env['MINER_BENCH_KEEP_DB'] === '1') process.stderr.write(`miner ledger bench: database kept at ${db.url}\n`);
    else await db.drop();
  }
};

export default bench;
