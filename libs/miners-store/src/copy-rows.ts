import type { StoredRow } from './row';

/** PostgreSQL's binary COPY header: signature, flags, no extension. */
export const COPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** The end of a binary COPY's rows. */
export const COPY_TRAILER = Buffer.from([0xff, 0xff]);
/** Bytes of a row's fixed fields at most (a null takes its length only): 21 field lengths, 7 int8, 8 int4, 5 int2. */
const FIXED = 2 + 21 * 4 + 7 * 8 + 8 * 4 + 5 * 2;

/**
 * Rows as binary COPY data of `miner_rounds_recent` in STORED_COLUMN_LIST's order, to go
 * between COPY_HEADER and COPY_TRAILER: a round's few hundred rows go in at a fraction of
 * an INSERT's cost (no text to parse).
 */
export function copyRows(rows: readonly StoredRow[]): Buffer {
  let size = 0;
  for (const r of rows) size += FIXED + (r.amounts === null ? 0 : 8 * r.amounts.length);
  const b = Buffer.allocUnsafe(size);
  let o = 0;
  const i8 = (v: number | null): void => {
    if (v === null) o = b.writeInt32BE(-1, o);
    else {
      o = b.writeInt32BE(8, o);
      o = int64(b, v, o);
    }
  };
  const i4 = (v: number | null): void => {
    if (v === null) o = b.writeInt32BE(-1, o);
    else {
      o = b.writeInt32BE(4, o);
      o = b.writeInt32BE(v, o);
    }
  };
  const i2 = (v: number): void => {
    o = b.writeInt32BE(2, o);
    o = b.writeInt16BE(v, o);
  };
  for (const r of rows) {
    o = b.writeInt16BE(21, o);
    i8(r.amount);
    i8(r.solBack);
    i8(r.ore);
    i8(r.oreMotherlode);
    i8(r.adminFee);
    i8(r.protocolFee);
    i8(r.oreValue);
    i4(r.roundId);
    i4(r.minerId);
    i4(r.squares);
    i4(r.signerId);
    i4(r.networkFee);
    i4(r.priorityFee);
    i4(r.executorFee);
    i4(r.checkpointDeposit);
    i2(r.slotsLeft);
    i2(r.slotsLeftLast);
    i2(r.deploys);
    i2(r.strategy);
    i2(r.flags);
    if (r.amounts === null) o = b.writeInt32BE(-1, o);
    else {
      o = b.writeInt32BE(8 * r.amounts.length, o);
      for (const a of r.amounts) o = int64(b, a, o);
    }
  }
  // Null figures take no bytes: the buffer was sized for none.
  return b.subarray(0, o);
}

const TWO_32 = 4294967296;

/**
 * A safe integer as a big-endian two's-complement int8, without a BigInt (a row has up to
 * 32 of them; history writes hundreds of thousands of rows): the high word is the floored
 * quotient by 2^32, the low word the remainder (ToUint32).
 */
function int64(b: Buffer, v: number, o: number): number {
  b.writeInt32BE(Math.floor(v / TWO_32), o);
  return b.writeUInt32BE(v >>> 0, o + 4);
}
