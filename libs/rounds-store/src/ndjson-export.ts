import { Readable, Transform, pipeline, type TransformCallback } from 'node:stream';
import type { Pool, PoolClient } from '@gridlab/db';
import { to as copyTo } from 'pg-copy-streams';
import * as line from './round-line';
import { ROUND_COLUMNS } from './rounds-table';
import * as table from './rounds-table';

// Bound to module constants: an imported binding is read through a getter on every use
// once compiled to CommonJS, which the per-row loops below pay measurably.
const { COPY_HEADER_BYTES, COPY_SIGNATURE, MAX_TUPLE_BYTES, SQUARES } = table;
const {
  K_COUNT, K_DEPLOYED, K_END, K_ID, K_MOTHERLODE, K_ORE_REWARD, K_PAYOUT_RULE, K_PRODUCTION_COST, K_SETTLED_AT, K_SLOT_HASH, K_SPLIT,
  K_MOTHERLODE_POOL, K_SOURCE, K_TOP_MINER, K_TOP_MINER_REWARD, K_TOTAL_DEPLOYED, K_TOTAL_MINERS, K_TOTAL_VAULTED, K_TOTAL_WINNINGS, K_WINNING,
  V_FALSE, V_NULL, V_PARIMUTUEL, V_RETURNS, V_SOURCES, V_TRUE,
} = line;

const TWO_32 = 0x1_0000_0000;
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
/**
 * pg arms its `query_timeout` (60 s) as a deadline on every query and disarms it through
 * the query's callback, which pg-copy-streams' COPY TO never calls: left alone, the timer
 * would fail an export that outlives it, and fire on a finished one. Exports set their own
 * deadline and disarm it when they end.
 */
const EXPORT_TIMEOUT_MS = 6 * 3600_000;

/**
 * Streams the stored rounds with fromId <= id <= toId as NDJSON (one wire Round per
 * line, the same text JSON.stringify gives), with backpressure all the way to PostgreSQL,
 * so memory stays constant for any range. Rounds below the line mark (`totals.lined_below`)
 * have their line stored (round_lines): those stream as stored. The rest are encoded here
 * from a binary COPY: no row objects, no text parsing of integers or hex. Both reads share
 * one snapshot, in which the mark holds. The caller must release the returned client when
 * the stream ends or fails.
 */
export async function exportRoundsNdjson(pool: Pool, fromId: number, toId: number): Promise<{ stream: NodeJS.ReadableStream; release: () => void }> {
  if (!Number.isSafeInteger(fromId) || !Number.isSafeInteger(toId)) throw new RangeError('ids must be safe integers');
  const client = await pool.connect();
  let linedBelow: number;
  try {
    // Rows in the primary key's order, read off its index as they go out. Left to itself
    // the planner may sort a wide range (its choice on stale statistics, or a sequential
    // scan of most of the table), and a sort of the whole range spills to disk before the
    // first row leaves: four times the work of the COPY itself, measured.
    await client.query(
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off',
    );
    const { rows } = await client.query<{ lined_below: string }>('SELECT lined_below FROM indexer.totals WHERE id = 1');
    linedBelow = Number(rows[0]?.lined_below ?? 0);
  } catch (error) {
    client.release(true);
    throw error;
  }
  const lastLined = Math.min(toId, linedBelow - 1);
  const firstEncoded = Math.max(fromId, lastLined + 1);
  let completed = false;
  // COPY takes no parameters; the bounds are checked integers.
  async function* lines(): AsyncGenerator<Buffer> {
    if (lastLined >= fromId) {
      yield* copyOut(client, `COPY (SELECT line FROM indexer.round_lines WHERE id BETWEEN ${fromId} AND ${lastLined} ORDER BY id) TO STDOUT`);
    }
    if (firstEncoded <= toId) {
      const encoder = new BinaryRoundsToNdjson();
      // Errors of either side end both; the consumer sees them on the encoder.
      pipeline(copyOut(client, `COPY (SELECT ${ROUND_COLUMNS.join(', ')} FROM indexer.rounds WHERE id BETWEEN ${firstEncoded} AND ${toId} ORDER BY id) TO STDOUT (FORMAT binary)`), encoder, () => undefined);
      yield* encoder;
    }
    // The stream ends once the read-only transaction has ended, so the connection goes back clean.
    await client.query('COMMIT');
    completed = true;
  }
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    // A connection abandoned mid-COPY (client gone, error) is not reusable: discard it.
    client.release(completed ? undefined : true);
  };
  return { stream: Readable.from(lines(), { objectMode: false }), release };
}

/** A `COPY ... TO STDOUT` as a stream of its data. */
export function copyOut(client: PoolClient, sql: string): Readable {
  const query = Object.assign(copyTo(sql), { query_timeout: EXPORT_TIMEOUT_MS });
  const copy = client.query(query) as typeof query & { callback?: (error: Error | null) => void };
  // Disarmed when the data ends, and when the stream is destroyed first (a consumer that
  // stops early): the deadline's timer would otherwise hold the process for hours.
  const disarm = (): void => copy.callback?.(null);
  copy.on('end', disarm);
  copy.on('close', disarm);
  return copy;
}

/**
 * The longest line a tuple can produce: 50 squares and 9 totals of at most 16 digits,
 * the id, the hash, the date, the top miner's address, the source and the keys.
 */
const MAX_LINE_BYTES = 62 * 17 + 680;

const TOTAL_KEYS = [K_TOTAL_DEPLOYED, K_TOTAL_WINNINGS, K_TOTAL_VAULTED, K_TOTAL_MINERS, K_MOTHERLODE, K_TOP_MINER_REWARD];
/** Two hex digits per byte value, as char codes. */
const HEX = Uint16Array.from({ length: 256 }, (_, b) => {
  const digits = b.toString(16).padStart(2, '0');
  return digits.charCodeAt(0) | (digits.charCodeAt(1) << 8);
});
/** Two decimal digits per value 0..99, as char codes. */
const PAIRS = Uint16Array.from({ length: 100 }, (_, n) => (48 + Math.floor(n / 10)) | ((48 + (n % 10)) << 8));

/**
 * Parses binary COPY tuples of indexer.rounds and writes their JSON lines straight into
 * bytes (the same text JSON.stringify gives): no intermediate strings, so a dump costs
 * little more than the COPY itself.
 */
export class BinaryRoundsToNdjson extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private headerSeen = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let o = 0;
    if (!this.headerSeen) {
      if (data.length < COPY_HEADER_BYTES) {
        this.pending = data;
        return done();
      }
      o = COPY_HEADER_BYTES + data.readInt32BE(COPY_SIGNATURE.length + 4);
      this.headerSeen = true;
    }
    // A stored round is at least 400 bytes of COPY data: this bounds the lines in `data`.
    const out = Buffer.allocUnsafe(Math.ceil(data.length / 400 + 1) * MAX_LINE_BYTES);
    let w = 0;
    for (;;) {
      // The table's CHECKs bound a tuple: with that much left, it is whole and needs no
      // walk to find its end first (writeRoundLine walks it once, and says where it ends).
      const end = data.length - o >= MAX_TUPLE_BYTES ? o : tupleEnd(data, o);
      if (end < 0) break;
      if (data.readInt16BE(o) === -1) {
        o += 2;
        break;
      }
      w = writeRoundLine(data, o + 2, out, w);
      o = lineEnd;
    }
    this.pending = data.subarray(o);
    if (w > 0) this.push(out.subarray(0, w));
    done();
  }
}

/** Offset after the tuple starting at `o`, or -1 when it is not complete in `data`. */
function tupleEnd(data: Buffer, o: number): number {
  if (o + 2 > data.length) return -1;
  const fields = data.readInt16BE(o);
  if (fields === -1) return o + 2;
  let p = o + 2;
  for (let f = 0; f < fields; f++) {
    if (p + 4 > data.length) return -1;
    const len = data.readInt32BE(p);
    p += 4 + Math.max(0, len);
    if (p > data.length) return -1;
  }
  return p;
}

function int8(data: Buffer, p: number): number {
  return data.readInt32BE(p) * TWO_32 + data.readUInt32BE(p + 4);
}

/** Writes a non-negative safe integer in decimal at `w`; returns the offset after it. */
function writeUint(out: Buffer, w: number, n: number): number {
  if (n < 10) {
    out[w] = 48 + n;
    return w + 1;
  }
  const digits = n < 100 ? 2 : n < 1e3 ? 3 : n < 1e4 ? 4 : n < 1e5 ? 5 : n < 1e6 ? 6 : n < 1e7 ? 7 : n < 1e8 ? 8 : n < 1e9 ? 9 : n < 1e10 ? 10 : n < 1e11 ? 11 : n < 1e12 ? 12 : n < 1e13 ? 13 : n < 1e14 ? 14 : n < 1e15 ? 15 : 16;
  let i = w + digits;
  while (n >= 100) {
    const q = Math.floor(n / 100);
    const pair = PAIRS[n - q * 100]!;
    out[--i] = pair >> 8;
    out[--i] = pair & 0xff;
    n = q;
  }
  if (n >= 10) {
    const pair = PAIRS[n]!;
    out[--i] = pair >> 8;
    out[--i] = pair & 0xff;
  } else {
    out[--i] = 48 + n;
  }
  return w + digits;
}

/** Writes a signed integer (the only negative values are impossible ids, but be exact). */
function writeInt(out: Buffer, w: number, n: number): number {
  if (n >= 0) return writeUint(out, w, n);
  out[w] = 45;
  return writeUint(out, w + 1, -n);
}

/** 25 little-endian u64 values at `p`, comma-separated. */
function writeSquares(data: Buffer, p: number, out: Buffer, w: number): number {
  for (let i = 0; i < SQUARES; i++) {
    if (i > 0) out[w++] = 44;
    const q = p + i * 8;
    const lo = (data[q]! | (data[q + 1]! << 8) | (data[q + 2]! << 16)) + data[q + 3]! * 0x100_0000;
    const hi = data[q + 4]! | (data[q + 5]! << 8) | (data[q + 6]! << 16);
    // Stored figures are below 2^53 (checked at ingestion): the top byte is zero, except
    // in u64::MAX, a partly known round's figure that is not known.
    if (data[q + 7] !== 0) w = put(out, w, V_NULL);
    else w = writeUint(out, w, hi === 0 ? lo : lo + hi * TWO_32);
  }
  return w;
}

function put(out: Buffer, w: number, bytes: Buffer): number {
  out.set(bytes, w);
  return w + bytes.length;
}

/** Where the tuple writeRoundLine last read ends (a second result, without an allocation). */
let lineEnd = 0;

/** Writes the JSON line of a tuple whose fields start at `p` (column order of ROUND_COLUMNS). */
function writeRoundLine(data: Buffer, p: number, out: Buffer, w: number): number {
  // Each field: a 4-byte length, then its bytes (length -1: NULL, no bytes).
  let at = p + 4;
  w = writeInt(out, put(out, w, K_ID), int8(data, at));
  p = at + data.readInt32BE(p);
  at = p + 4;
  w = writeSquares(data, at, out, put(out, w, K_DEPLOYED));
  p = at + data.readInt32BE(p);
  at = p + 4;
  w = writeSquares(data, at, out, put(out, w, K_COUNT));
  p = at + data.readInt32BE(p);
  const wsLen = data.readInt32BE(p);
  at = p + 4;
  w = put(out, w, K_WINNING);
  w = wsLen < 0 ? put(out, w, V_NULL) : writeInt(out, w, data.readInt16BE(at));
  p = at + Math.max(0, wsLen);
  // total_miners is NULL in a partly known round that does not show it.
  for (const key of TOTAL_KEYS) {
    w = writeNullableInt8(data, p, out, put(out, w, key));
    p += 4 + Math.max(0, data.readInt32BE(p));
  }
  at = p + 4;
  w = put(out, w, K_SLOT_HASH);
  for (let i = 0; i < 32; i++) {
    const hex = HEX[data[at + i]!]!;
    out[w++] = hex & 0xff;
    out[w++] = hex >> 8;
  }
  p = at + data.readInt32BE(p);
  at = p + 4;
  w = put(out, w, K_SETTLED_AT);
  w = writeIsoTime(out, w, PG_EPOCH_MS + int8(data, at) / 1000);
  p = at + data.readInt32BE(p);
  at = p + 4;
  w = put(out, put(out, w, K_PAYOUT_RULE), data.readInt16BE(at) === 1 ? V_RETURNS : V_PARIMUTUEL);
  p = at + 2;
  w = writeNullableInt8(data, p, out, put(out, w, K_ORE_REWARD));
  p += 4 + Math.max(0, data.readInt32BE(p));
  const minerLen = data.readInt32BE(p);
  w = put(out, w, K_TOP_MINER);
  if (minerLen < 0) w = put(out, w, V_NULL);
  else {
    // A base58 address: no character needs escaping.
    out[w++] = 34;
    w += data.copy(out, w, p + 4, p + 4 + minerLen);
    out[w++] = 34;
  }
  p += 4 + Math.max(0, minerLen);
  const splitLen = data.readInt32BE(p);
  w = put(out, put(out, w, K_SPLIT), splitLen < 0 ? V_NULL : data[p + 4] === 1 ? V_TRUE : V_FALSE);
  p += 4 + Math.max(0, splitLen);
  w = writeNullableInt8(data, p, out, put(out, w, K_PRODUCTION_COST));
  p += 4 + Math.max(0, data.readInt32BE(p));
  w = put(out, put(out, w, K_SOURCE), V_SOURCES[data.readInt16BE(p + 4)]!);
  p += 6;
  w = writeNullableInt8(data, p, out, put(out, w, K_MOTHERLODE_POOL));
  lineEnd = p + 4 + Math.max(0, data.readInt32BE(p));
  w = put(out, w, K_END);
  out[w] = 0x0a;
  return w + 1;
}

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years toISOString writes with four digits. */
const ISO_MIN_MS = -62_167_219_200_000;
const ISO_MAX_MS = 253_402_300_799_999;

/**
 * Writes `ms` (milliseconds since the epoch) as `Date.prototype.toISOString` does, from
 * digits rather than through a Date and a string (days to a civil date: H. Hinnant's
 * algorithm); years outside 0000-9999 go through toISOString.
 */
export function writeIsoTime(out: Buffer, w: number, ms: number): number {
  const t = Math.trunc(ms);
  if (!(t >= ISO_MIN_MS && t <= ISO_MAX_MS)) return w + out.write(new Date(t).toISOString(), w, 'latin1');
  const days = Math.floor(t / DAY_MS);
  let rem = t - days * DAY_MS;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rem / 3_600_000);
  rem -= hours * 3_600_000;
  const minutes = Math.floor(rem / 60_000);
  rem -= minutes * 60_000;
  const seconds = Math.floor(rem / 1000);
  const millis = rem - seconds * 1000;
  w = pair(out, pair(out, w, Math.floor(year / 100)), year % 100);
  out[w++] = 45;
  w = pair(out, w, month);
  out[w++] = 45;
  w = pair(out, w, day);
  out[w++] = 84;
  w = pair(out, w, hours);
  out[w++] = 58;
  w = pair(out, w, minutes);
  out[w++] = 58;
  w = pair(out, w, seconds);
  out[w++] = 46;
  out[w++] = 48 + Math.floor(millis / 100);
  w = pair(out, w, millis % 100);
  out[w] = 90;
  return w + 1;
}

/** Two decimal digits of 0..99. */
function pair(out: Buffer, w: number, n: number): number {
  const digits = PAIRS[n]!;
  out[w] = digits & 0xff;
  out[w + 1] = digits >> 8;
  return w + 2;
}

/** A nullable int8 field (length prefix at `p`) as a JSON number or null. */
function writeNullableInt8(data: Buffer, p: number, out: Buffer, w: number): number {
  return data.readInt32BE(p) < 0 ? put(out, w, V_NULL) : writeInt(out, w, int8(data, p + 4));
}
