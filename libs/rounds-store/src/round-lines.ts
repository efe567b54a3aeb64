import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { withTransaction, type Pool } from '@gridlab/db';
import { from as copyFrom } from 'pg-copy-streams';
import { BinaryRoundsToNdjson, copyOut } from './ndjson-export';
import { K_ID } from './round-line';
import { COPY_SIGNATURE, ROUND_COLUMNS } from './rounds-table';

const NEWLINE = 0x0a;
const COMMA = 0x2c;

/**
 * Writes the line of up to `maxRows` stored rounds that have none, in id order from the
 * line mark, and raises the mark past them (see round_lines); returns how many it wrote.
 * Holds the totals row's lock meanwhile, as inserts do, so no round lands in the range
 * it marks as lined without its line.
 */
export async function writeRoundLines(pool: Pool, maxRows: number): Promise<number> {
  if (!Number.isSafeInteger(maxRows) || maxRows < 1) throw new RangeError('maxRows must be a positive integer');
  return withTransaction(pool, async (client) => {
    // The rounds without a line, off the two primary keys in step (the planner's choice on a
    // table without statistics yet, just after an import, can be a sort of all of it).
    await client.query('SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off');
    const { rows } = await client.query<{ lined_below: string; last_id: string | null }>('SELECT lined_below, last_id FROM indexer.totals WHERE id = 1 FOR UPDATE');
    const from = Number(rows[0]?.lined_below ?? 0);
    const lastId = rows[0]?.last_id == null ? null : Number(rows[0].last_id);
    if (lastId === null || from > lastId) return 0;
    const encoder = new BinaryRoundsToNdjson();
    const encoded = pipeline(
      copyOut(
        client,
        `COPY (SELECT ${ROUND_COLUMNS.map((c) => `r.${c}`).join(', ')} FROM indexer.rounds r
               WHERE r.id >= ${from} AND NOT EXISTS (SELECT 1 FROM indexer.round_lines l WHERE l.id = r.id)
               ORDER BY r.id LIMIT ${maxRows}) TO STDOUT (FORMAT binary)`,
      ),
      encoder,
    );
    const chunks: Buffer[] = [];
    for await (const chunk of encoder as AsyncIterable<Buffer>) chunks.push(chunk);
    await encoded;
    const { data, count, lastLineId } = copyLineRows(Buffer.concat(chunks));
    if (count > 0) await pipeline(Readable.from([data]), client.query(copyFrom('COPY indexer.round_lines (id, line) FROM STDIN (FORMAT binary)')));
    // Fewer than asked: every round from the mark on has its line now.
    const mark = count < maxRows ? lastId + 1 : lastLineId + 1;
    await client.query('UPDATE indexer.totals SET lined_below = $1 WHERE id = 1', [mark]);
    return count;
  });
}

/** NDJSON lines (each starting `{"id":<id>,`) as binary COPY tuples of round_lines (id, line without its newline). */
function copyLineRows(ndjson: Buffer): { data: Buffer; count: number; lastLineId: number } {
  let lines = 0;
  for (let nl = ndjson.indexOf(NEWLINE); nl >= 0; nl = ndjson.indexOf(NEWLINE, nl + 1)) lines++;
  // Per line: a field count, the id's length and value, the line's length; no newline.
  const data = Buffer.allocUnsafe(COPY_SIGNATURE.length + 8 + ndjson.length + lines * (2 + 4 + 8 + 4 - 1) + 2);
  let w = COPY_SIGNATURE.copy(data, 0);
  w = data.writeInt32BE(0, w);
  w = data.writeInt32BE(0, w);
  let count = 0;
  let lastLineId = -1;
  for (let start = 0; start < ndjson.length; count++) {
    const end = ndjson.indexOf(NEWLINE, start);
    lastLineId = Number(ndjson.toString('latin1', start + K_ID.length, ndjson.indexOf(COMMA, start)));
    w = data.writeInt16BE(2, w);
    w = data.writeInt32BE(8, w);
    w = data.writeBigInt64BE(BigInt(lastLineId), w);
    w = data.writeInt32BE(end - start, w);
    w += ndjson.copy(data, w, start, end);
    start = end + 1;
  }
  w = data.writeInt16BE(-1, w);
  return { data: data.subarray(0, w), count, lastLineId };
}
