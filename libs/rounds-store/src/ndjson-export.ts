import { Transform, pipeline, type TransformCallback } from 'node:stream';
import type { Pool } from '@gridlab/db';
import { to as copyTo } from 'pg-copy-streams';
import { ROUND_COLUMNS } from './copy-binary';

const SIGNATURE_BYTES = 11;
const HEADER_BYTES = SIGNATURE_BYTES + 8;
const TWO_32 = 0x1_0000_0000;
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const SQUARES = 25;
/**
 * pg arms its `query_timeout` (60 s) as a deadline on every query and disarms it through
 * the query's callback, which pg-copy-streams' COPY TO never calls: left alone, the timer
 * would fail an export that outlives it, and fire on a finished one. Exports set their own
 * deadline and disarm it when they end.
 */
const EXPORT_TIMEOUT_MS = 6 * 3600_000;

/**
 * Streams the stored rounds with fromId <= id <= toId as NDJSON (one wire Round per
 * line, the same text JSON.stringify gives), straight from a binary COPY: no row
 * objects, no text parsing of integers or hex, and backpressure all the way to
 * PostgreSQL, so memory stays constant for any range. The caller must release the
 * returned client when the stream ends or fails.
 */
export async function exportRoundsNdjson(pool: Pool, fromId: number, toId: number): Promise<{ stream: NodeJS.ReadableStream; release: () => void }> {
  if (!Number.isSafeInteger(fromId) || !Number.isSafeInteger(toId)) throw new RangeError('ids must be safe integers');
  const client = await pool.connect();
  // COPY takes no parameters; the bounds are checked integers.
  const query = Object.assign(
    copyTo(`COPY (SELECT ${ROUND_COLUMNS.join(', ')} FROM indexer.rounds WHERE id BETWEEN ${fromId} AND ${toId} ORDER BY id) TO STDOUT (FORMAT binary)`),
    { query_timeout: EXPORT_TIMEOUT_MS },
  );
  const copy = client.query(query) as typeof query & { callback?: (error: Error | null) => void };
  const out = new BinaryRoundsToNdjson();
  let completed = false;
  copy.on('end', () => {
    completed = true;
    copy.callback?.(null);
  });
  // Errors of either side end both; the consumer sees them on `out`.
  pipeline(copy, out, () => undefined);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    // A connection abandoned mid-COPY (client gone, error) is not reusable: discard it.
    client.release(completed ? undefined : true);
  };
  return { stream: out, release };
}

/** Parses binary COPY tuples of indexer.rounds and writes their JSON lines. */
class BinaryRoundsToNdjson extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private headerSeen = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let o = 0;
    if (!this.headerSeen) {
      if (data.length < HEADER_BYTES) {
        this.pending = data;
        return done();
      }
      o = HEADER_BYTES + data.readInt32BE(SIGNATURE_BYTES + 4);
      this.headerSeen = true;
    }
    let out = '';
    for (;;) {
      const end = tupleEnd(data, o);
      if (end < 0) break;
      if (data.readInt16BE(o) === -1) {
        o += 2;
        break;
      }
      out += roundLine(data, o + 2);
      o = end;
    }
    this.pending = data.subarray(o);
    if (out !== '') this.push(out);
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

function squares(data: Buffer, p: number): string {
  let s = '[';
  for (let i = 0; i < SQUARES; i++) {
    const q = p + i * 8;
    s += `${i === 0 ? '' : ','}${data.readUInt32LE(q) + data.readUInt32LE(q + 4) * TWO_32}`;
  }
  return `${s}]`;
}

/** One JSON line from a tuple whose fields start at `p` (column order of ROUND_COLUMNS). */
function roundLine(data: Buffer, p: number): string {
  const next = (): number => {
    const at = p + 4;
    p = at + Math.max(0, data.readInt32BE(p));
    return at;
  };
  const id = int8(data, next());
  const deployed = squares(data, next());
  const count = squares(data, next());
  const wsLen = data.readInt32BE(p);
  const wsAt = next();
  const winningSquare = wsLen < 0 ? 'null' : String(data.readInt16BE(wsAt));
  const totalDeployed = int8(data, next());
  const totalWinnings = int8(data, next());
  const totalVaulted = int8(data, next());
  const totalMiners = int8(data, next());
  const motherlode = int8(data, next());
  const topMinerReward = int8(data, next());
  const hashAt = next();
  const slotHash = data.toString('hex', hashAt, hashAt + 32);
  const settledAt = new Date(PG_EPOCH_MS + int8(data, next()) / 1000).toISOString();
  return (
    `{"id":${id},"deployed":${deployed},"count":${count},"winningSquare":${winningSquare},` +
    `"totalDeployed":${totalDeployed},"totalWinnings":${totalWinnings},"totalVaulted":${totalVaulted},` +
    `"totalMiners":${totalMiners},"motherlode":${motherlode},"topMinerReward":${topMinerReward},` +
    `"slotHash":"${slotHash}","settledAt":"${settledAt}"}\n`
  );
}
