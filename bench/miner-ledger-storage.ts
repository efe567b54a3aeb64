/**
 * Every miner's ledger: candidate storage layouts measured on mainnet-sized synthetic data
 * (docs/miner-ledger-storage.md). Not part of `make bench` (it loads millions of rows).
 *
 *   MINER_LEDGER_DB=postgres://postgres@127.0.0.1:5432/gridlab_minerstore_x \
 *   MINER_LEDGER_ROWS=17280000 node --import tsx bench/miner-ledger-storage.ts
 *
 * Phases: schema, wallets, candidate A (one row per miner-round, 7-day partitions, btree on
 * (miner_id, round_id)) loaded by binary COPY, rollups built from it, candidate B (one row
 * per wallet per day block of 1,440 rounds, columns packed in a compressed bytea) compacted
 * from A, then sizes, summary latency, ledger export against raw binary COPY, top-miners,
 * one round's insert with its rollups, rollup window expiry, compaction and partition detach.
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createPool, type PoolClient } from '@gridlab/db';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { CopyWriter, EXECUTORS, ROUNDS_PER_DAY, Rng, WHALES, makeRound, makeWallets, placeWallets, popcount, type Row } from './miner-ledger-data';
import { percentile } from './stats';

const DB = process.env.MINER_LEDGER_DB ?? 'postgres://postgres@127.0.0.1:5432/gridlab_minerstore';
const ROWS = Number(process.env.MINER_LEDGER_ROWS ?? 17_280_000);
const DAYS = Number(process.env.MINER_LEDGER_DAYS ?? 30);
const WALLETS = Number(process.env.MINER_LEDGER_WALLETS ?? 30_000);
/** Phases to skip (comma separated): load, rollups, blocks. */
const SKIP = new Set((process.env.MINER_LEDGER_SKIP ?? '').split(',').filter(Boolean));
const ROUNDS = DAYS * ROUNDS_PER_DAY;
const SCALE = { rows: ROWS, rounds: ROUNDS, wallets: WALLETS };
const PARTITION_ROUNDS = 7 * ROUNDS_PER_DAY;
/** Slots left at a deploy, in 16 buckets: 0, 1, 2, 3, 4-5, 6-7, 8-11, 12-15, 16-23, ..., 192+. */
const SLOT_BUCKETS = 16;
const BUCKET_LOW = [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192];

function slotBucket(s: number): number {
  let b = SLOT_BUCKETS - 1;
  while (BUCKET_LOW[b]! > s) b--;
  return b;
}
/** The same in SQL: a 256-entry lookup (slots_left above 255 fall in the last bucket). */
const BUCKET_SQL = `('{${Array.from({ length: 256 }, (_, s) => slotBucket(s)).join(',')}}'::int2[])[least(slots_left, 255) + 1]`;

// ---------------------------------------------------------------------------------------
// Schema. Candidate A is also the recent/staging layout of candidate B.

const A_COLUMNS = [
  'amount',
  'sol_back',
  'ore',
  'ore_motherlode',
  'admin_fee',
  'protocol_fee',
  'round_id',
  'miner_id',
  'squares',
  'signer_id',
  'tx_fee',
  'slots_left',
  'slots_left_last',
  'deploys',
  'strategy',
  'flags',
  'amounts',
] as const;

/** Columns of a miner-round row, widest first so no alignment padding is wasted. */
const A_BODY = `
  amount          int8,              -- lamports per square when the same on every square; null: per square in amounts, or not known
  sol_back        int8,              -- lamports the checkpoint pays back; null: not known
  ore             int8,              -- ORE base units of the top-miner reward or of a split (flags say which); null: not known
  ore_motherlode  int8,              -- ORE base units of the motherlode share; null: not known
  admin_fee       int8,
  protocol_fee    int8,
  round_id        int4 NOT NULL,
  miner_id        int4 NOT NULL,     -- wallets.id of the authority
  squares         int4 NOT NULL,     -- bit s: deployed on square s
  signer_id       int4 NOT NULL,     -- wallets.id of the signer (= miner_id when the wallet signed itself)
  tx_fee          int4,              -- lamports of network + priority fees the wallet paid for its deploys; null: not known
  slots_left      int2 NOT NULL,     -- slots before the round's end at its first deploy
  slots_left_last int2 NOT NULL,     -- at its last deploy (= slots_left with one deploy)
  deploys         int2 NOT NULL,
  strategy        int2 NOT NULL,     -- -1: manual, -2: automated (strategy not logged), >= 0: the automation's strategy
  flags           int2 NOT NULL,     -- 1: top miner, 2: split round (ore is a split share), 4: held the winning square
  amounts         bytea              -- not uniform: one big-endian int8 per set bit of squares, in square order`;

const ROLLUP_BODY = `
  miner_id        int4 NOT NULL,
  rounds          int4 NOT NULL,
  deploys         int4 NOT NULL,
  wins            int4 NOT NULL,     -- rounds holding the winning square
  top_wins        int4 NOT NULL,
  motherlode_hits int4 NOT NULL,
  first_round     int4 NOT NULL,
  last_round      int4 NOT NULL,
  deployed        int8 NOT NULL,
  sol_back        int8 NOT NULL,
  admin_fee       int8 NOT NULL,
  protocol_fee    int8 NOT NULL,
  tx_fee          int8 NOT NULL,
  ore_top         int8 NOT NULL,
  ore_split       int8 NOT NULL,
  ore_motherlode  int8 NOT NULL,
  unknown         int4 NOT NULL,     -- rounds whose outcome or amount is not known (left out of the sums)
  slots_hist      int4[] NOT NULL    -- deploys per slots-left bucket (16)`;

const SCHEMA = `
CREATE TABLE wallets (
  id      int4 PRIMARY KEY,
  address bytea NOT NULL UNIQUE CHECK (octet_length(address) = 32)
);

CREATE TABLE miner_rounds (${A_BODY}
  ,  PRIMARY KEY (miner_id, round_id)
) PARTITION BY RANGE (round_id);

-- Candidate B: the recent rounds in A's layout, compacted per day into one row per wallet.
CREATE TABLE miner_rounds_recent (${A_BODY}
  ,  PRIMARY KEY (miner_id, round_id)
);

CREATE TABLE miner_blocks (
  block_start int4 NOT NULL,          -- first round of the block (a multiple of 1440)
  miner_id    int4 NOT NULL,
  rounds      int2 NOT NULL,          -- entries in data
  data        bytea COMPRESSION lz4 NOT NULL,
  PRIMARY KEY (miner_id, block_start)
) PARTITION BY RANGE (block_start);

CREATE TABLE miner_days (
  day int4 NOT NULL,                  -- the round's UTC day
${ROLLUP_BODY}
  ,  PRIMARY KEY (miner_id, day)
);
CREATE TABLE miner_hours (
  hour int4 NOT NULL,                 -- the round's UTC hour; kept 48 hours
${ROLLUP_BODY}
  ,  PRIMARY KEY (miner_id, hour)
);
CREATE TABLE miner_totals (
${ROLLUP_BODY}
  ,  PRIMARY KEY (miner_id)
);
-- Top miners: one row per wallet and window (1: 24 h, 2: 7 d, 3: 30 d), added to per round,
-- subtracted from as hours and days leave the window. 'all' reads miner_totals.
CREATE TABLE miner_windows (
  win      int2 NOT NULL,
  miner_id int4 NOT NULL,
  rounds   int4 NOT NULL,
  deployed int8 NOT NULL,
  net      int8 NOT NULL,               -- sol_back - deployed
  ore      int8 NOT NULL,               -- all sources
  PRIMARY KEY (miner_id, win)
) WITH (fillfactor = 80);

CREATE FUNCTION int4_array_add(a int4[], b int4[]) RETURNS int4[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT array_agg(x + y ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS t(x, y, i) $$;
`;

function partitionsSql(): string {
  const out: string[] = [];
  for (let from = 0; from < ROUNDS + PARTITION_ROUNDS; from += PARTITION_ROUNDS) {
    const p = from / PARTITION_ROUNDS;
    out.push(`CREATE TABLE miner_rounds_p${p} PARTITION OF miner_rounds FOR VALUES FROM (${from}) TO (${from + PARTITION_ROUNDS});`);
    out.push(`CREATE TABLE miner_blocks_p${p} PARTITION OF miner_blocks FOR VALUES FROM (${from}) TO (${from + PARTITION_ROUNDS}) WITH (toast_tuple_target = 128);`);
  }
  return out.join('\n');
}

function amountsBytes(amounts: number[] | null): Buffer | null {
  if (amounts === null) return null;
  const b = Buffer.alloc(8 * amounts.length);
  amounts.forEach((a, i) => {
    b.writeInt32BE(Math.floor(a / 4294967296), 8 * i);
    b.writeUInt32BE(a >>> 0, 8 * i + 4);
  });
  return b;
}

function writeRow(c: CopyWriter, r: Row): void {
  c.fields(A_COLUMNS.length);
  c.int8(r.amount);
  c.int8(r.solBack);
  c.int8(r.ore);
  c.int8(r.oreMotherlode);
  c.int8(r.adminFee);
  c.int8(r.protocolFee);
  c.int4(r.round);
  c.int4(r.miner);
  c.int4(r.squares);
  c.int4(r.signer);
  c.int4(r.txFee);
  c.int2(r.slotsLeft);
  c.int2(r.slotsLeftLast);
  c.int2(r.deploys);
  c.int2(r.strategy);
  c.int2(r.flags);
  c.bytes(amountsBytes(r.amounts));
}

// ---------------------------------------------------------------------------------------
// SQL: rollups, compaction, reads.

/** A rollup row's figures from miner-round rows `m` (grouped by the caller). */
const ROLLUP_SELECT = `
  count(*)::int4, sum(deploys)::int4,
  count(*) FILTER (WHERE flags & 4 <> 0)::int4, count(*) FILTER (WHERE flags & 1 <> 0)::int4,
  count(*) FILTER (WHERE ore_motherlode > 0)::int4, min(round_id), max(round_id),
  coalesce(sum(stake) FILTER (WHERE known), 0)::int8, coalesce(sum(sol_back) FILTER (WHERE known), 0)::int8,
  coalesce(sum(admin_fee) FILTER (WHERE known), 0)::int8, coalesce(sum(protocol_fee) FILTER (WHERE known), 0)::int8,
  coalesce(sum(tx_fee), 0)::int8,
  coalesce(sum(ore) FILTER (WHERE known AND flags & 2 = 0), 0)::int8, coalesce(sum(ore) FILTER (WHERE known AND flags & 2 <> 0), 0)::int8,
  coalesce(sum(ore_motherlode) FILTER (WHERE known), 0)::int8,
  count(*) FILTER (WHERE NOT known)::int4,
  ARRAY[${Array.from({ length: SLOT_BUCKETS }, (_, b) => `count(*) FILTER (WHERE bucket = ${b})::int4`).join(', ')}]`;

const ROLLUP_COLUMNS = 'miner_id, rounds, deploys, wins, top_wins, motherlode_hits, first_round, last_round, deployed, sol_back, admin_fee, protocol_fee, tx_fee, ore_top, ore_split, ore_motherlode, unknown, slots_hist';

/** Miner-round rows with their stake (amount x squares, or the per-square amounts summed), known flag and slots bucket. */
function withStake(from: string): string {
  return `(SELECT r.*, ${BUCKET_SQL} AS bucket,
      (sol_back IS NOT NULL AND (amount IS NOT NULL OR amounts IS NOT NULL)) AS known,
      coalesce(amount * bit_count(squares::bit(25)),
        (SELECT sum(get_byte(amounts, 8 * i + 3)::int8 << 32 | (get_byte(amounts, 8 * i + 4)::int8 << 24) | (get_byte(amounts, 8 * i + 5)::int8 << 16) | (get_byte(amounts, 8 * i + 6)::int8 << 8) | get_byte(amounts, 8 * i + 7))
           FROM generate_series(0, length(amounts) / 8 - 1) i)) AS stake
    FROM ${from} r)`;
}

const ROLLUP_UPSERT_SET = `rounds = t.rounds + excluded.rounds, deploys = t.deploys + excluded.deploys, wins = t.wins + excluded.wins,
  top_wins = t.top_wins + excluded.top_wins, motherlode_hits = t.motherlode_hits + excluded.motherlode_hits,
  first_round = least(t.first_round, excluded.first_round), last_round = greatest(t.last_round, excluded.last_round),
  deployed = t.deployed + excluded.deployed, sol_back = t.sol_back + excluded.sol_back, admin_fee = t.admin_fee + excluded.admin_fee,
  protocol_fee = t.protocol_fee + excluded.protocol_fee, tx_fee = t.tx_fee + excluded.tx_fee, ore_top = t.ore_top + excluded.ore_top,
  ore_split = t.ore_split + excluded.ore_split, ore_motherlode = t.ore_motherlode + excluded.ore_motherlode, unknown = t.unknown + excluded.unknown,
  slots_hist = int4_array_add(t.slots_hist, excluded.slots_hist)`;

/** One round's rows (already in miner_rounds_recent) added to every rollup. */
function roundRollupsSql(round: number): string[] {
  const src = withStake(`(SELECT * FROM miner_rounds_recent WHERE round_id = ${round})`);
  const day = Math.floor(round / ROUNDS_PER_DAY);
  const hour = Math.floor(round / 60);
  return [
    `INSERT INTO miner_days AS t (day, ${ROLLUP_COLUMNS}) SELECT ${day}, miner_id, ${ROLLUP_SELECT} FROM ${src} s GROUP BY miner_id ON CONFLICT (miner_id, day) DO UPDATE SET ${ROLLUP_UPSERT_SET}`,
    `INSERT INTO miner_hours AS t (hour, ${ROLLUP_COLUMNS}) SELECT ${hour}, miner_id, ${ROLLUP_SELECT} FROM ${src} s GROUP BY miner_id ON CONFLICT (miner_id, hour) DO UPDATE SET ${ROLLUP_UPSERT_SET}`,
    `INSERT INTO miner_totals AS t (${ROLLUP_COLUMNS}) SELECT miner_id, ${ROLLUP_SELECT} FROM ${src} s GROUP BY miner_id ON CONFLICT (miner_id) DO UPDATE SET ${ROLLUP_UPSERT_SET}`,
    `INSERT INTO miner_windows AS t (win, miner_id, rounds, deployed, net, ore)
       SELECT w, miner_id, count(*), coalesce(sum(stake) FILTER (WHERE known), 0), coalesce(sum(sol_back - stake) FILTER (WHERE known), 0),
              coalesce(sum(ore + ore_motherlode) FILTER (WHERE known), 0)
       FROM ${src} s, (VALUES (1::int2), (2::int2), (3::int2)) v(w) GROUP BY w, miner_id
     ON CONFLICT (win, miner_id) DO UPDATE SET rounds = t.rounds + excluded.rounds, deployed = t.deployed + excluded.deployed,
       net = t.net + excluded.net, ore = t.ore + excluded.ore`,
  ];
}

/** Subtract a rollup bucket leaving a window, and forget wallets with nothing left in it. */
function expireSql(win: number, table: 'miner_hours' | 'miner_days', key: 'hour' | 'day', value: number): string[] {
  return [
    `UPDATE miner_windows w SET rounds = w.rounds - b.rounds, deployed = w.deployed - b.deployed, net = w.net - (b.sol_back - b.deployed),
       ore = w.ore - (b.ore_top + b.ore_split + b.ore_motherlode)
     FROM ${table} b WHERE b.${key} = ${value} AND w.win = ${win} AND w.miner_id = b.miner_id`,
    `DELETE FROM miner_windows WHERE win = ${win} AND rounds <= 0`,
  ];
}

/**
 * Candidate B's compaction of rounds [from, to) into blocks: per wallet, the rows in round
 * order, packed column by column (big-endian, as int*send writes): n round offsets (int2),
 * squares (int4), amount, sol_back, ore, ore_motherlode, admin_fee, protocol_fee (int8,
 * -1: null), signer_id, tx_fee (int4, -1: null), slots_left, slots_left_last, deploys,
 * strategy, flags (int2), then the per-square amounts of the rows whose amount is -2.
 */
function compactSql(source: string, blockStart: number, to: number): string {
  return `INSERT INTO miner_blocks (block_start, miner_id, rounds, data)
    ${packSelect(`(SELECT * FROM ${source} WHERE round_id >= ${blockStart} AND round_id < ${to})`)}`;
}

/** block_start, miner_id, rounds, data of the rows of \`source\`, one per wallet and day. */
function packSelect(source: string): string {
  const agg = (expr: string): string => `string_agg(${expr}, ''::bytea)`;
  return `SELECT block_start, miner_id, count(*)::int2 AS rounds,
      ${agg('int2send((round_id - block_start)::int2)')} || ${agg('int4send(squares)')} ||
      ${agg(`int8send(coalesce(amount, CASE WHEN amounts IS NULL THEN -1 ELSE -2 END))`)} ||
      ${agg('int8send(coalesce(sol_back, -1))')} || ${agg('int8send(coalesce(ore, -1))')} || ${agg('int8send(coalesce(ore_motherlode, -1))')} ||
      ${agg('int8send(coalesce(admin_fee, -1))')} || ${agg('int8send(coalesce(protocol_fee, -1))')} ||
      ${agg('int4send(signer_id)')} || ${agg('int4send(coalesce(tx_fee, -1))')} ||
      ${agg('int2send(slots_left)')} || ${agg('int2send(slots_left_last)')} || ${agg('int2send(deploys)')} ||
      ${agg('int2send(strategy)')} || ${agg('int2send(flags)')} || coalesce(${agg('amounts')}, ''::bytea) AS data
    FROM (SELECT *, round_id - round_id % ${ROUNDS_PER_DAY} AS block_start FROM ${source} s ORDER BY miner_id, round_id) r
    GROUP BY miner_id, block_start`;
}

/** A wallet's ledger as blocks, newest first: its recent rows packed on the fly, then its compacted days. */
function exportSql(miner: number): string {
  return `COPY ((SELECT block_start, rounds, data FROM (${packSelect(`(SELECT * FROM miner_rounds_recent WHERE miner_id = ${miner})`)}) p ORDER BY block_start DESC)
    UNION ALL (SELECT block_start, rounds, data FROM miner_blocks WHERE miner_id = ${miner} ORDER BY block_start DESC)) TO STDOUT (FORMAT binary)`;
}

// ---------------------------------------------------------------------------------------
// Reading B: blocks decoded into ledger rows (binary COPY tuples, as a raw COPY of A's rows would give).

/** Decodes one block's data (n rows) into binary COPY tuples of A's columns, newest first. */
function decodeFixed(out: CopyWriter, miner: number, blockStart: number, data: Buffer, n: number): number {
  const oRound = 0;
  const oSquares = 2 * n;
  const oAmount = 6 * n;
  const oSolBack = 14 * n;
  const oOre = 22 * n;
  const oMl = 30 * n;
  const oAdmin = 38 * n;
  const oProtocol = 46 * n;
  const oSigner = 54 * n;
  const oTxFee = 58 * n;
  const oSlots = 62 * n;
  const oSlotsLast = 64 * n;
  const oDeploys = 66 * n;
  const oStrategy = 68 * n;
  const oFlags = 70 * n;
  // Exception offsets, in row order.
  const extraAt = new Int32Array(n);
  let e = 72 * n;
  for (let i = 0; i < n; i++) {
    if (data.readInt32BE(oAmount + 8 * i) === -1 && data.readInt32BE(oAmount + 8 * i + 4) === -2) {
      extraAt[i] = e;
      e += 8 * popcount(data.readInt32BE(oSquares + 4 * i));
    } else extraAt[i] = -1;
  }
  const i8 = (at: number): number | null => {
    const hi = data.readInt32BE(at);
    return hi < 0 ? null : hi * 4294967296 + data.readUInt32BE(at + 4);
  };
  for (let i = n - 1; i >= 0; i--) {
    out.fields(A_COLUMNS.length);
    out.int8(i8(oAmount + 8 * i));
    out.int8(i8(oSolBack + 8 * i));
    out.int8(i8(oOre + 8 * i));
    out.int8(i8(oMl + 8 * i));
    out.int8(i8(oAdmin + 8 * i));
    out.int8(i8(oProtocol + 8 * i));
    out.int4(blockStart + data.readInt16BE(oRound + 2 * i));
    out.int4(miner);
    out.int4(data.readInt32BE(oSquares + 4 * i));
    out.int4(data.readInt32BE(oSigner + 4 * i));
    const fee = data.readInt32BE(oTxFee + 4 * i);
    out.int4(fee < 0 ? null : fee);
    out.int2(data.readInt16BE(oSlots + 2 * i));
    out.int2(data.readInt16BE(oSlotsLast + 2 * i));
    out.int2(data.readInt16BE(oDeploys + 2 * i));
    out.int2(data.readInt16BE(oStrategy + 2 * i));
    out.int2(data.readInt16BE(oFlags + 2 * i));
    const x = extraAt[i]!;
    out.bytes(x < 0 ? null : data.subarray(x, x + 8 * popcount(data.readInt32BE(oSquares + 4 * i))));
  }
  return n;
}

/** Streams a COPY TO into a sink, returning bytes received. */
async function copyOut(client: PoolClient, sql: string, onChunk?: (chunk: Buffer) => void): Promise<number> {
  let bytes = 0;
  await pipeline(
    client.query(copyTo(sql)),
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        onChunk?.(chunk);
        cb();
      },
    }),
  );
  return bytes;
}

/** Parses binary COPY tuples of (block_start int4, rounds int2, data bytea) as they arrive. */
class BlockParser {
  private pending: Buffer = Buffer.alloc(0);
  private headerDone = false;
  constructor(private readonly onBlock: (blockStart: number, n: number, data: Buffer) => void) {}
  push(chunk: Buffer): void {
    const b = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let o = 0;
    if (!this.headerDone) {
      if (b.length < 19) {
        this.pending = b;
        return;
      }
      o = 19 + b.readInt32BE(15);
      this.headerDone = true;
    }
    for (;;) {
      if (b.length - o < 2) break;
      const fields = b.readInt16BE(o);
      if (fields === -1) {
        o += 2;
        break;
      }
      // 3 fields: int4, int2, bytea
      if (b.length - o < 2 + 8 + 6 + 4) break;
      const len = b.readInt32BE(o + 2 + 8 + 6);
      const end = o + 2 + 8 + 6 + 4 + len;
      if (b.length < end) break;
      const blockStart = b.readInt32BE(o + 6);
      const n = b.readInt16BE(o + 14);
      this.onBlock(blockStart, n, b.subarray(o + 20, end));
      o = end;
    }
    this.pending = b.subarray(o);
  }
}

// ---------------------------------------------------------------------------------------

interface Figure {
  readonly what: string;
  readonly value: string;
}
const figures: Figure[] = [];
function report(what: string, value: string): void {
  figures.push({ what, value });
  console.log(`${what}: ${value}`);
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = process.hrtime.bigint();
  const v = await f();
  return [v, Number(process.hrtime.bigint() - t) / 1e6];
}

async function sizeOf(client: PoolClient, parent: string): Promise<{ heap: number; toast: number; index: number; total: number }> {
  const { rows } = await client.query<{ heap: string; toast: string; index: string; total: string }>(
    `SELECT coalesce(sum(pg_relation_size(c.oid)), 0) AS heap,
            coalesce(sum(pg_total_relation_size(c.oid) - pg_relation_size(c.oid) - pg_indexes_size(c.oid)), 0) AS toast,
            coalesce(sum(pg_indexes_size(c.oid)), 0) AS index, coalesce(sum(pg_total_relation_size(c.oid)), 0) AS total
     FROM pg_class c WHERE c.oid = '${parent}'::regclass OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = '${parent}'::regclass)`,
  );
  const r = rows[0]!;
  return { heap: Number(r.heap), toast: Number(r.toast), index: Number(r.index), total: Number(r.total) };
}

async function main(): Promise<void> {
  const pool = createPool(DB, { max: 2, applicationName: 'miner-ledger-bench' });
  const client = await pool.connect();
  await client.query(`SET statement_timeout = 0; SET maintenance_work_mem = '512MB'; SET work_mem = '64MB'`);
  const rng = new Rng(20261129);
  const w = makeWallets(rng, SCALE);

  if (!SKIP.has('load')) {
    await client.query(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; ${SCHEMA} ${partitionsSql()}`);
    // Wallets (and the executors that sign for automations).
    const wc = new CopyWriter();
    for (let id = 1; id <= WALLETS + EXECUTORS; id++) {
      const a = Buffer.alloc(32);
      for (let k = 0; k < 32; k += 4) a.writeUInt32BE((rng.next() * 4294967296) >>> 0, k);
      wc.fields(2);
      wc.int4(id);
      wc.bytes(a);
    }
    wc.trailer();
    await pipeline(Readable.from([wc.take()]), client.query(copyFrom('COPY wallets (id, address) FROM STDIN (FORMAT binary)')));

    const placed = placeWallets(rng, w, SCALE);
    // Load A without its primary key, then build the key (as a bulk load would).
    await client.query(`ALTER TABLE miner_rounds DROP CONSTRAINT miner_rounds_pkey`);
    const [rows, loadMs] = await timed(async () => {
      let count = 0;
      const gen = function* (): Generator<Buffer> {
        const c = new CopyWriter();
        for (let r = 0; r < ROUNDS; r++) {
          for (const row of makeRound(rng, w, r, placed.wallet.subarray(placed.start[r], placed.start[r + 1]))) {
            writeRow(c, row);
            count++;
          }
          if (c.o > 4 << 20) yield c.take();
          if (r % 4320 === 0) console.log(`  round ${r}/${ROUNDS}`);
        }
        c.trailer();
        yield c.take();
      };
      await pipeline(Readable.from(gen()), client.query(copyFrom(`COPY miner_rounds (${A_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`)));
      return count;
    });
    report('A: rows loaded (binary COPY, no index)', `${rows} in ${(loadMs / 1000).toFixed(1)} s (${Math.round(rows / (loadMs / 1000))} rows/s)`);
    const [, pkMs] = await timed(() => client.query(`ALTER TABLE miner_rounds ADD PRIMARY KEY (miner_id, round_id)`));
    report('A: primary key (miner_id, round_id) built', `${(pkMs / 1000).toFixed(1)} s`);
    for (const t of ['miner_rounds', 'wallets']) await client.query(`VACUUM ANALYZE ${t}`);
  }
  const rowCount = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM miner_rounds`)).rows[0]!.n);
  const a = await sizeOf(client, 'miner_rounds');
  report('A: bytes/row', `${(a.total / rowCount).toFixed(1)} (heap ${(a.heap / rowCount).toFixed(1)}, toast ${(a.toast / rowCount).toFixed(1)}, indexes ${(a.index / rowCount).toFixed(1)}; ${rowCount} rows, ${(a.total / 2 ** 20).toFixed(0)} MiB)`);

  if (!SKIP.has('rollups')) {
    await client.query(`TRUNCATE miner_days, miner_hours, miner_totals, miner_windows`);
    const lastDay = Math.floor((ROUNDS - 1) / ROUNDS_PER_DAY);
    const lastHour = Math.floor((ROUNDS - 1) / 60);
    const [, rollMs] = await timed(async () => {
      await client.query(`INSERT INTO miner_days (day, ${ROLLUP_COLUMNS}) SELECT round_id / ${ROUNDS_PER_DAY}, miner_id, ${ROLLUP_SELECT} FROM ${withStake('miner_rounds')} s GROUP BY round_id / ${ROUNDS_PER_DAY}, miner_id`);
      await client.query(`INSERT INTO miner_hours (hour, ${ROLLUP_COLUMNS}) SELECT round_id / 60, miner_id, ${ROLLUP_SELECT} FROM ${withStake(`(SELECT * FROM miner_rounds WHERE round_id >= ${(lastHour - 47) * 60})`)} s GROUP BY round_id / 60, miner_id`);
      const sum = (c: string): string => `sum(${c})`;
      await client.query(`INSERT INTO miner_totals (${ROLLUP_COLUMNS})
        SELECT miner_id, ${['rounds', 'deploys', 'wins', 'top_wins', 'motherlode_hits'].map((c) => `${sum(c)}::int4`).join(', ')}, min(first_round), max(last_round),
          ${['deployed', 'sol_back', 'admin_fee', 'protocol_fee', 'tx_fee', 'ore_top', 'ore_split', 'ore_motherlode'].map((c) => `${sum(c)}::int8`).join(', ')}, sum(unknown)::int4,
          ARRAY[${Array.from({ length: SLOT_BUCKETS }, (_, b) => `sum(slots_hist[${b + 1}])::int4`).join(', ')}]
        FROM miner_days GROUP BY miner_id`);
      const win = (n: number, table: string, cond: string): string =>
        `INSERT INTO miner_windows (win, miner_id, rounds, deployed, net, ore) SELECT ${n}, miner_id, sum(rounds), sum(deployed), sum(sol_back - deployed), sum(ore_top + ore_split + ore_motherlode) FROM ${table} WHERE ${cond} GROUP BY miner_id`;
      await client.query(win(1, 'miner_hours', `hour > ${lastHour - 24}`));
      await client.query(win(2, 'miner_days', `day > ${lastDay - 7}`));
      await client.query(win(3, 'miner_days', `day > ${lastDay - 30}`));
      for (const t of ['miner_days', 'miner_hours', 'miner_totals', 'miner_windows']) await client.query(`VACUUM ANALYZE ${t}`);
    });
    report('rollups built from A (days, 48 h of hours, totals, windows)', `${(rollMs / 1000).toFixed(1)} s`);
  }
  for (const t of ['miner_days', 'miner_hours', 'miner_totals', 'miner_windows', 'wallets']) {
    const s = await sizeOf(client, t);
    const n = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n);
    report(`size ${t}`, `${n} rows, ${(s.total / 2 ** 20).toFixed(1)} MiB (${(s.total / rowCount).toFixed(2)} bytes per miner-round)`);
  }

  if (!SKIP.has('blocks')) {
    await client.query(`TRUNCATE miner_blocks`);
    const dayMs: number[] = [];
    for (let d = 0; d < DAYS; d++) {
      const [, ms] = await timed(() => client.query(compactSql('miner_rounds', d * ROUNDS_PER_DAY, (d + 1) * ROUNDS_PER_DAY)));
      dayMs.push(ms);
    }
    await client.query(`VACUUM ANALYZE miner_blocks`);
    report('B: compaction of one day of A rows into blocks (p50 / max over days)', `${percentile(dayMs, 50).toFixed(0)} / ${Math.max(...dayMs).toFixed(0)} ms`);
  }
  const b = await sizeOf(client, 'miner_blocks');
  const toastSizes = await client.query<{ n: string }>(`SELECT coalesce(sum(pg_total_relation_size(reltoastrelid)), 0) AS n FROM pg_class WHERE oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'miner_blocks'::regclass)`);
  const blockRows = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM miner_blocks`)).rows[0]!.n);
  report('B: bytes/row', `${(b.total / rowCount).toFixed(1)} (heap ${(b.heap / rowCount).toFixed(1)}, toast ${(Number(toastSizes.rows[0]!.n) / rowCount).toFixed(1)}, indexes ${(b.index / rowCount).toFixed(1)}; ${blockRows} block rows, ${(b.total / 2 ** 20).toFixed(0)} MiB)`);

  const packed = (await client.query<{ raw: string; stored: string }>(`SELECT sum(octet_length(data)) AS raw, sum(pg_column_size(data)) AS stored FROM miner_blocks`)).rows[0]!;
  report('B: packed data raw / stored (lz4) bytes per miner-round', `${(Number(packed.raw) / rowCount).toFixed(1)} / ${(Number(packed.stored) / rowCount).toFixed(1)}`);

  // Wallets to read: whales and others by rows.
  const byRows = (await client.query<{ miner_id: number; rounds: number }>(`SELECT miner_id, rounds FROM miner_totals ORDER BY rounds DESC`)).rows;
  const whale = byRows[0]!;
  const medianWallet = byRows[Math.floor(byRows.length / 2)]!;
  report('wallets', `${byRows.length} distinct; biggest ${whale.rounds} rounds, median ${medianWallet.rounds}, p90 ${byRows[Math.floor(byRows.length * 0.1)]!.rounds}`);

  // --- Wallet summary.
  const lastDay = Math.floor((ROUNDS - 1) / ROUNDS_PER_DAY);
  const lastHour = Math.floor((ROUNDS - 1) / 60);
  const summary = async (miner: number): Promise<unknown> => {
    const { rows } = await client.query(
      `SELECT 0 AS k, NULL::int4 AS bucket, ${ROLLUP_COLUMNS} FROM miner_totals WHERE miner_id = $1
       UNION ALL SELECT 1, hour, ${ROLLUP_COLUMNS} FROM miner_hours WHERE miner_id = $1 AND hour > $2
       UNION ALL SELECT 2, day, ${ROLLUP_COLUMNS} FROM miner_days WHERE miner_id = $1 AND day > $3`,
      [miner, lastHour - 24, lastDay - 30],
    );
    return summarize(rows as RollupRow[], lastDay);
  };
  const sample: number[] = [];
  for (let k = 0; k < 100; k++) sample.push(byRows[k]!.miner_id);
  for (let k = 0; k < 100; k++) sample.push(byRows[100 + rng.int(byRows.length - 100)]!.miner_id);
  for (const m of sample) await summary(m);
  const sumMs: number[] = [];
  for (const m of sample) sumMs.push((await timed(() => summary(m)))[1]);
  report('summary (all, 24 h, 7 d, 30 d) over 200 wallets: p50 / p99 / max', `${percentile(sumMs, 50)} / ${percentile(sumMs, 99)} / ${Math.max(...sumMs).toFixed(2)} ms`);
  console.log(JSON.stringify(await summary(whale.miner_id), null, 1).slice(0, 1500));

  // --- Ledger export.
  for (const [label, wallet] of [['whale', whale], ['median wallet', medianWallet]] as const) {
    const m = wallet.miner_id;
    const runs = label === 'whale' ? 5 : 21;
    const rawA: number[] = [];
    const rawB: number[] = [];
    const expB: number[] = [];
    let bytesA = 0;
    let bytesOut = 0;
    for (let k = 0; k < runs; k++) {
      const [ba, ta] = await timed(() => copyOut(client, `COPY (SELECT ${A_COLUMNS.join(', ')} FROM miner_rounds WHERE miner_id = ${m} ORDER BY round_id DESC) TO STDOUT (FORMAT binary)`));
      bytesA = ba;
      rawA.push(ta);
      rawB.push((await timed(() => copyOut(client, `COPY (SELECT block_start, rounds, data FROM miner_blocks WHERE miner_id = ${m} ORDER BY block_start DESC) TO STDOUT (FORMAT binary)`)))[1]);
      const outChunks: Buffer[] = [];
      const [bo, tb] = await timed(async () => {
        const out = new CopyWriter();
        let total = 0;
        const parser = new BlockParser((start, n, data) => {
          decodeFixed(out, m, start, data, n);
          if (out.o > 1 << 20) {
            const t = out.take();
            total += t.length;
            if (k === 0) outChunks.push(t);
          }
        });
        await copyOut(client, exportSql(m), (c) => parser.push(c));
        out.trailer();
        const t = out.take();
        if (k === 0) outChunks.push(t);
        return total + t.length;
      });
      if (k === 0) {
        const aChunks: Buffer[] = [];
        await copyOut(client, `COPY (SELECT ${A_COLUMNS.join(', ')} FROM miner_rounds WHERE miner_id = ${m} ORDER BY round_id DESC) TO STDOUT (FORMAT binary)`, (c) => aChunks.push(Buffer.from(c)));
        report(`export ${label}: B decoded equals A's raw COPY byte for byte`, String(Buffer.concat(aChunks).equals(Buffer.concat(outChunks))));
      }
      bytesOut = bo;
      expB.push(tb);
    }
    const pa = percentile(rawA, 50);
    const pb = percentile(expB, 50);
    report(
      `export ${label} (${wallet.rounds} rows): raw COPY of A rows / raw COPY of B blocks / B export decoded to A tuples (median of ${runs})`,
      `${pa} / ${percentile(rawB, 50)} / ${pb} ms; bytes ${bytesA} vs ${bytesOut}; export speed = ${(pa / pb).toFixed(2)} of raw A COPY`,
    );
  }

  // --- Top miners.
  for (const win of ['24h', '7d', '30d', 'all'] as const) {
    for (const sort of ['net', 'ore', 'deployed', 'rounds'] as const) {
      const expr = win === 'all' ? { net: 'sol_back - deployed', ore: 'ore_top + ore_split + ore_motherlode', deployed: 'deployed', rounds: 'rounds' }[sort] : sort;
      const sql =
        win === 'all'
          ? `SELECT w.address, t.rounds, t.deployed, t.sol_back - t.deployed AS net, t.ore_top + t.ore_split + t.ore_motherlode AS ore FROM (SELECT * FROM miner_totals ORDER BY ${expr} DESC LIMIT 100) t JOIN wallets w ON w.id = t.miner_id ORDER BY ${expr} DESC`
          : `SELECT w.address, t.rounds, t.deployed, t.net, t.ore FROM (SELECT * FROM miner_windows WHERE win = ${{ '24h': 1, '7d': 2, '30d': 3 }[win]} ORDER BY ${expr} DESC LIMIT 100) t JOIN wallets w ON w.id = t.miner_id ORDER BY ${expr} DESC`;
      const ms: number[] = [];
      for (let k = 0; k < 7; k++) ms.push((await timed(() => client.query(sql)))[1]);
      report(`top miners ${win} by ${sort}: median / max of 7`, `${percentile(ms, 50)} / ${Math.max(...ms).toFixed(2)} ms`);
    }
  }
  // For comparison: the 30 d window aggregated from miner_days at query time.
  {
    const ms: number[] = [];
    for (let k = 0; k < 3; k++)
      ms.push((await timed(() => client.query(`SELECT miner_id, sum(sol_back - deployed) AS net FROM miner_days WHERE day > ${lastDay - 30} GROUP BY miner_id ORDER BY net DESC LIMIT 100`)))[1]);
    report('top miners 30d by net aggregated from miner_days at query time (no window table): median of 3', `${percentile(ms, 50)} ms`);
  }

  // --- One round's insert (400 rows into the recent table) and its rollups, as the indexer would each minute.
  {
    const insMs: number[] = [];
    const rollMs: number[] = [];
    const avg = Math.round(rowCount / ROUNDS);
    for (let k = 0; k < 20; k++) {
      const round = ROUNDS + k;
      const ids = new Int32Array(avg);
      const seen = new Set<number>();
      for (let j = 0; j < avg; j++) {
        let id: number;
        do id = j < 80 ? 1 + rng.int(WHALES) : 1 + rng.int(WALLETS);
        while (seen.has(id));
        seen.add(id);
        ids[j] = id;
      }
      const c = new CopyWriter();
      for (const row of makeRound(rng, w, round, ids)) writeRow(c, row);
      c.trailer();
      const buf = c.take();
      await client.query('BEGIN');
      const [, ti] = await timed(() => pipeline(Readable.from([buf]), client.query(copyFrom(`COPY miner_rounds_recent (${A_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`))));
      const [, tr] = await timed(async () => {
        for (const sql of roundRollupsSql(round)) await client.query(sql);
      });
      await client.query('COMMIT');
      insMs.push(ti);
      rollMs.push(tr);
    }
    report(`one round (${avg} rows) COPY into miner_rounds_recent: p50 / max of 20`, `${percentile(insMs, 50)} / ${Math.max(...insMs).toFixed(1)} ms`);
    report('its rollups (days, hours, totals, 3 windows): p50 / max of 20', `${percentile(rollMs, 50)} / ${Math.max(...rollMs).toFixed(1)} ms`);
    // Same 400 rows straight into A's partitioned table with its btree, for comparison.
    const c = new CopyWriter();
    const ids = Int32Array.from({ length: avg }, (_, j) => 1 + j * Math.floor(WALLETS / avg));
    for (const row of makeRound(rng, w, ROUNDS + 100, ids)) writeRow(c, row);
    c.trailer();
    const buf = c.take();
    const [, ta] = await timed(() => pipeline(Readable.from([buf]), client.query(copyFrom(`COPY miner_rounds (${A_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`))));
    report('one round COPY into A (partitioned, btree)', `${ta.toFixed(1)} ms`);
  }

  // --- Window expiry: an hour leaving 24 h, a day leaving 7 d and 30 d.
  {
    await client.query('BEGIN');
    const [, th] = await timed(async () => {
      for (const sql of expireSql(1, 'miner_hours', 'hour', lastHour - 24)) await client.query(sql);
    });
    const [, td] = await timed(async () => {
      for (const sql of [...expireSql(2, 'miner_days', 'day', lastDay - 7), ...expireSql(3, 'miner_days', 'day', lastDay - 30)]) await client.query(sql);
    });
    await client.query('ROLLBACK');
    report('window expiry: one hour out of 24 h / one day out of 7 d and 30 d', `${th.toFixed(1)} / ${td.toFixed(1)} ms`);
  }

  // --- Compaction of a day of recent rows (the last day of A copied to the recent table first).
  {
    await client.query(`TRUNCATE miner_rounds_recent`);
    const from = (DAYS - 1) * ROUNDS_PER_DAY;
    await client.query(`INSERT INTO miner_rounds_recent SELECT * FROM miner_rounds WHERE round_id >= ${from} AND round_id < ${ROUNDS}`);
    await client.query(`VACUUM ANALYZE miner_rounds_recent`);
    await client.query('BEGIN');
    await client.query(`DELETE FROM miner_blocks WHERE block_start = ${from}`);
    const [, tc] = await timed(async () => {
      await client.query(compactSql('miner_rounds_recent', from, ROUNDS));
      await client.query(`DELETE FROM miner_rounds_recent WHERE round_id < ${ROUNDS}`);
    });
    await client.query('COMMIT');
    report('compaction of the last day from miner_rounds_recent into blocks (insert + delete, one transaction)', `${(tc / 1000).toFixed(2)} s`);
  }

  // --- Partition detach (the oldest week).
  {
    const [, ta] = await timed(() => client.query(`ALTER TABLE miner_rounds DETACH PARTITION miner_rounds_p0`));
    const [, tb] = await timed(() => client.query(`ALTER TABLE miner_blocks DETACH PARTITION miner_blocks_p0`));
    report('detach oldest partition: A / B', `${ta.toFixed(1)} / ${tb.toFixed(1)} ms`);
    await client.query(`ALTER TABLE miner_rounds ATTACH PARTITION miner_rounds_p0 FOR VALUES FROM (0) TO (${PARTITION_ROUNDS})`);
    await client.query(`ALTER TABLE miner_blocks ATTACH PARTITION miner_blocks_p0 FOR VALUES FROM (0) TO (${PARTITION_ROUNDS})`);
  }

  console.log('\n--- figures');
  for (const f of figures) console.log(`${f.what}: ${f.value}`);
  client.release();
  await pool.end();
}

interface RollupRow {
  k: number;
  bucket: number | null;
  rounds: number;
  deploys: number;
  wins: number;
  top_wins: number;
  motherlode_hits: number;
  first_round: number;
  last_round: number;
  deployed: number;
  sol_back: number;
  admin_fee: number;
  protocol_fee: number;
  tx_fee: number;
  ore_top: number;
  ore_split: number;
  ore_motherlode: number;
  unknown: number;
  slots_hist: number[];
}

/** The summary's four windows from the rollup rows: all time, 24 h (hours), 7 d and 30 d (days). */
function summarize(rows: RollupRow[], lastDay: number): Record<string, unknown> {
  const windows: Record<string, RollupRow[]> = {
    all: rows.filter((r) => r.k === 0),
    '24h': rows.filter((r) => r.k === 1),
    '7d': rows.filter((r) => r.k === 2 && r.bucket! > lastDay - 7),
    '30d': rows.filter((r) => r.k === 2),
  };
  const out: Record<string, unknown> = {};
  for (const [name, rs] of Object.entries(windows)) {
    const s = { rounds: 0, deploys: 0, wins: 0, topWins: 0, motherlodeHits: 0, deployed: 0, solBack: 0, fees: 0, txFee: 0, oreTop: 0, oreSplit: 0, oreMotherlode: 0, first: Infinity, last: -Infinity };
    const hist = new Array<number>(SLOT_BUCKETS).fill(0);
    for (const r of rs) {
      s.rounds += r.rounds;
      s.deploys += r.deploys;
      s.wins += r.wins;
      s.topWins += r.top_wins;
      s.motherlodeHits += r.motherlode_hits;
      s.deployed += r.deployed;
      s.solBack += r.sol_back;
      s.fees += r.admin_fee + r.protocol_fee;
      s.txFee += r.tx_fee;
      s.oreTop += r.ore_top;
      s.oreSplit += r.ore_split;
      s.oreMotherlode += r.ore_motherlode;
      s.first = Math.min(s.first, r.first_round);
      s.last = Math.max(s.last, r.last_round);
      r.slots_hist.forEach((v, i) => (hist[i]! += v));
    }
    const all = hist.reduce((x, y) => x + y, 0);
    let acc = 0;
    let median = -1;
    for (let i = 0; i < SLOT_BUCKETS && median < 0; i++) if ((acc += hist[i]!) * 2 >= all && all > 0) median = i;
    out[name] = {
      ...s,
      net: s.solBack - s.deployed,
      winRate: s.rounds === 0 ? null : s.wins / s.rounds,
      medianSlotsLeft: median < 0 ? null : [BUCKET_LOW[median], median + 1 < SLOT_BUCKETS ? BUCKET_LOW[median + 1]! - 1 : null],
    };
  }
  return out;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
