import type { Pool } from '@gridlab/db';
import { copyOut } from './copy-out';
import { SOURCE_CODES } from './rounds-table';

/** The board's squares (the packed columns hold one u64 each). */
const SQUARES = 25;
/**
 * The columns a replay reads, in the order the COPY below sends them: the seed's, then
 * what the `returns` rule prices with (SPEC 7.7): the rule, ORE reward, motherlode,
 * split, production cost and the slot hash (its rng draws the top miner).
 */
export const REPLAY_COLUMNS =
  'id, deployed, count, winning_square, total_deployed, total_winnings, total_miners, payout_rule, ore_reward, motherlode, split, production_cost, slot_hash';
/** rounds-store's SOURCE_CODES.transactions_partial: rounds a replay leaves out. */
const PARTIAL_SOURCE = SOURCE_CODES.transactions_partial;
const SIGNATURE_BYTES = 11;
const HEADER_BYTES = SIGNATURE_BYTES + 8;
const FIELDS = 13;
const TWO_32 = 0x1_0000_0000;
const PACKED_BYTES = SQUARES * 8;
const SLOT_HASH_BYTES = 32;
/** payout_rule's code for `returns` (rounds-store's PAYOUT_RULE_CODES). */
const RETURNS_CODE = 1;
/**
 * The longest tuple: field count, 13 lengths, id, two packed columns, winning square,
 * 3 totals, the rule, 3 ORE-side bigints, split, the slot hash.
 */
const MAX_TUPLE_BYTES = 2 + FIELDS * 4 + 8 + 2 * PACKED_BYTES + 2 + 3 * 8 + 2 + 3 * 8 + 1 + SLOT_HASH_BYTES;
/**
 * pg arms its pool-wide query_timeout on every query: a load, which may take minutes on
 * a large table, sets its own (copyOut disarms it when the COPY ends).
 */
const LOAD_TIMEOUT_MS = 10 * 60_000;
/** Where parsed rounds go (appended in order; `lastId` is the newest appended, for the order check). */
export interface RoundColumnSink {
  readonly lastId: number | null;
  /** `round` is a scratch object reused for the next tuple: copy what you keep. */
  append(round: ColumnRound): void;
}

/** A round as a replay reads it (the strategy engine's RoundInput), reused for every tuple. */
export interface ColumnRound {
  id: number;
  deployed: Float64Array;
  count: Float64Array;
  winningSquare: number | null;
  totalDeployed: number;
  totalWinnings: number;
  totalMiners: number;
  payoutRule: 'parimutuel' | 'returns';
  oreReward: number | null;
  motherlode: number;
  split: boolean | null;
  productionCost: number | null;
  slotHash: Uint8Array;
}

/**
 * The indexer's rounds, read in bulk by another service (lab-backtest's in-memory
 * history): one binary COPY of the columns a replay needs, parsed straight from the wire
 * bytes (the per-square values are the packed little-endian u64 of the table) into a
 * sink, chunk by chunk, with no row objects and no text parsing. Read only.
 */
export class RoundColumnsReader {
  constructor(private readonly pool: Pool) {}

  /**
   * How many rounds a replay reads (every stored round but the partly known, whose
   * per-square figures the chain does not show) and the newest stored id (the aggregates
   * row, O(1)).
   */
  async totals(): Promise<{ count: number; lastId: number | null }> {
    const { rows } = await this.pool.query<{ n: number; last_id: number | null }>('SELECT rounds_indexed - partial_rounds AS n, last_id FROM indexer.totals WHERE id = 1');
    return { count: rows[0]?.n ?? 0, lastId: rows[0]?.last_id ?? null };
  }

  /** Appends the rounds with afterId < id <= upToId (afterId null: from the first), in id order; resolves with how many. */
  copyRange(into: RoundColumnSink, afterId: number | null, upToId: number): Promise<number> {
    const from = afterId ?? -1;
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(upToId)) throw new RangeError('round ids must be safe integers');
    if (upToId <= from) return Promise.resolve(0);
    // COPY takes no parameters; both bounds are checked integers.
    return this.copy(into, `COPY (SELECT ${REPLAY_COLUMNS} FROM indexer.rounds WHERE id > ${from} AND id <= ${upToId} AND source <> ${PARTIAL_SOURCE} ORDER BY id) TO STDOUT (FORMAT binary)`);
  }

  /**
   * Appends every round up to upToId in storage order: a sequential scan costs PostgreSQL
   * ~30% less than walking the primary key, and rounds are stored in id order unless
   * older ones were added later (a backfill, an import). Throws OutOfOrder when the table
   * turns out not to be in id order; the caller then starts over with copyRange.
   *
   * The query filters no id: with `id <= upToId` the planner may walk the primary key in a
   * bitmap heap scan (it did, on statistics older than the rows), which reads every page
   * through shared buffers instead of a sequential scan's small ring and, in the new
   * backend a starting service gets, costs 1.5–2 times as long. Rows above upToId (stored
   * after the caller's totals) are skipped here and come with the next catch-up. The scan
   * must start at the table's first page: PostgreSQL otherwise starts a large table's
   * scan where another scan is (synchronize_seqscans), and the ids would wrap around.
   * (`source`, which leaves out the partly known rounds, has no index: it keeps the scan.)
   */
  copyAllInStorageOrder(into: RoundColumnSink, upToId: number): Promise<number> {
    if (!Number.isSafeInteger(upToId)) throw new RangeError('round ids must be safe integers');
    return this.copy(into, `COPY (SELECT ${REPLAY_COLUMNS} FROM indexer.rounds WHERE source <> ${PARTIAL_SOURCE}) TO STDOUT (FORMAT binary)`, upToId, true);
  }

  private async copy(into: RoundColumnSink, sql: string, maxId = Number.MAX_SAFE_INTEGER, fromFirstPage = false): Promise<number> {
    const client = await this.pool.connect();
    let completed = false;
    try {
      if (fromFirstPage) await client.query('SET synchronize_seqscans = off');
      const parser = new TupleParser(into, maxId);
      // Tuples parsed straight from the socket's chunks (copyOut), as they arrive.
      await copyOut(client, sql, (chunk, start, end, view) => parser.push(chunk, start, end, view), { timeoutMs: LOAD_TIMEOUT_MS });
      parser.end();
      if (fromFirstPage) await client.query('RESET synchronize_seqscans');
      completed = true;
      return parser.appended;
    } finally {
      // A connection abandoned mid-COPY is not reusable: discard it.
      client.release(completed ? undefined : true);
    }
  }
}

/** A tuple whose id does not follow the previous one (the table is not stored in id order). */
export class OutOfOrder extends Error {}

/**
 * Parses binary COPY tuples of REPLAY_COLUMNS into a sink, straight from each chunk.
 * Only a tuple split across two chunks is copied (into a small carry buffer), so the
 * hundreds of megabytes of a full load cause no concatenation and little garbage.
 */
export class TupleParser {
  appended = 0;
  private headerSeen = false;
  private trailerSeen = false;
  /** The start of a tuple cut by the end of the previous chunk, then the head of the next. */
  private readonly carry = Buffer.allocUnsafe(2 * MAX_TUPLE_BYTES);
  private readonly carryView = new DataView(this.carry.buffer, this.carry.byteOffset, this.carry.byteLength);
  private carried = 0;
  private readonly round: ColumnRound = {
    id: 0,
    deployed: new Float64Array(SQUARES),
    count: new Float64Array(SQUARES),
    winningSquare: null,
    totalDeployed: 0,
    totalWinnings: 0,
    totalMiners: 0,
    payoutRule: 'parimutuel',
    oreReward: null,
    motherlode: 0,
    split: null,
    productionCost: null,
    slotHash: new Uint8Array(SLOT_HASH_BYTES),
  };

  /** Tuples with a greater id are read past, not appended. */
  constructor(
    private readonly into: RoundColumnSink,
    private readonly maxId = Number.MAX_SAFE_INTEGER,
  ) {}

  /** Parses chunk[start, end) (`view`: a DataView over the whole chunk, when the caller has one). */
  push(chunk: Buffer, start = 0, end = chunk.length, view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength)): void {
    let o = start;
    if (this.carried > 0) {
      const take = Math.min(end - start, MAX_TUPLE_BYTES);
      chunk.copy(this.carry, this.carried, start, start + take);
      const used = this.consume(this.carryView, 0, this.carried + take);
      if (used <= this.carried) {
        // Still incomplete: the chunk was shorter than the rest of the tuple.
        this.carried += take;
        return;
      }
      o = start + used - this.carried;
      this.carried = 0;
    }
    const used = this.consume(view, o, end);
    if (used < end) {
      if (end - used > MAX_TUPLE_BYTES) throw new Error('COPY data holds an oversized tuple');
      chunk.copy(this.carry, 0, used, end);
      this.carried = end - used;
    }
  }

  end(): void {
    if (!this.trailerSeen || this.carried > 0) throw new Error('COPY ended mid-tuple');
  }

  /** Parses the complete tuples (and the header or trailer) in data[o, end); returns where it stopped. */
  private consume(data: DataView, o: number, end: number): number {
    if (!this.headerSeen) {
      if (end - o < HEADER_BYTES) return o;
      o += HEADER_BYTES + data.getInt32(o + SIGNATURE_BYTES + 4);
      this.headerSeen = true;
    }
    while (!this.trailerSeen && o + 2 <= end) {
      const fields = data.getInt16(o);
      if (fields === -1) {
        this.trailerSeen = true;
        return o + 2;
      }
      if (fields !== FIELDS) throw new Error(`COPY tuple has ${fields} fields, expected ${FIELDS}`);
      const next = tupleEnd(data, o, end);
      if (next < 0) break;
      this.parse(data, o + 2);
      o = next;
    }
    return o;
  }

  /** Reads one tuple whose fields start at `p` and appends it. */
  private parse(data: DataView, p: number): void {
    const r = this.round;
    r.id = int8(data, p + 4);
    if (r.id > this.maxId) return;
    p += 12;
    if (data.getInt32(p) !== PACKED_BYTES) throw new Error(`round ${r.id}: deployed is not ${SQUARES} packed u64`);
    squares(data, p + 4, r.deployed);
    p += 4 + PACKED_BYTES;
    if (data.getInt32(p) !== PACKED_BYTES) throw new Error(`round ${r.id}: count is not ${SQUARES} packed u64`);
    squares(data, p + 4, r.count);
    p += 4 + PACKED_BYTES;
    const winningLength = data.getInt32(p);
    r.winningSquare = winningLength < 0 ? null : data.getInt16(p + 4);
    p += 4 + Math.max(0, winningLength);
    r.totalDeployed = int8(data, p + 4);
    r.totalWinnings = int8(data, p + 16);
    r.totalMiners = int8(data, p + 28);
    p += 36;
    // payout_rule (smallint, never null); a parimutuel round needs none of the rest.
    if (data.getInt16(p + 4) === RETURNS_CODE) {
      r.payoutRule = 'returns';
      p += 6;
      let length = data.getInt32(p);
      r.oreReward = length < 0 ? null : int8(data, p + 4);
      p += 4 + Math.max(0, length);
      r.motherlode = int8(data, p + 4);
      p += 12;
      length = data.getInt32(p);
      r.split = length < 0 ? null : data.getUint8(p + 4) !== 0;
      p += 4 + Math.max(0, length);
      length = data.getInt32(p);
      r.productionCost = length < 0 ? null : int8(data, p + 4);
      p += 4 + Math.max(0, length);
      if (data.getInt32(p) !== SLOT_HASH_BYTES) throw new Error(`round ${r.id}: slot_hash is not ${SLOT_HASH_BYTES} bytes`);
      const hash = r.slotHash;
      for (let b = 0; b < SLOT_HASH_BYTES; b++) hash[b] = data.getUint8(p + 4 + b);
    } else {
      r.payoutRule = 'parimutuel';
    }
    const lastId = this.into.lastId;
    if (lastId !== null && r.id <= lastId) throw new OutOfOrder(`round ${r.id} follows round ${lastId}`);
    this.into.append(r);
    this.appended++;
  }
}

/** Offset after the tuple starting at `o`, or -1 when it does not end before `end`. */
function tupleEnd(data: DataView, o: number, end: number): number {
  let p = o + 2;
  for (let f = 0; f < FIELDS; f++) {
    if (p + 4 > end) return -1;
    p += 4 + Math.max(0, data.getInt32(p));
    if (p > end) return -1;
  }
  return p;
}

/** A big-endian int8 (ids and totals are non-negative and below 2^53 by the table's checks). */
function int8(data: DataView, p: number): number {
  return data.getInt32(p) * TWO_32 + data.getUint32(p + 4);
}

/** 25 little-endian u64 values (below 2^53, checked at ingestion) into `out`. */
function squares(data: DataView, p: number, out: Float64Array): void {
  for (let s = 0; s < SQUARES; s++) {
    const q = p + s * 8;
    out[s] = data.getUint32(q, true) + data.getUint32(q + 4, true) * TWO_32;
  }
}
