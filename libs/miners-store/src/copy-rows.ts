import type { StoredRow } from './row';

/** PostgreSQL's binary COPY header: signature, flags, no extension. */
const COPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** Bytes of a row's fixed fields at most (a null takes its length only): 21 field lengths, 7 int8, 8 int4, 5 int2. */
const FIXED = 2 + 21 * 4 + 7 * 8 + 8 * 4 + 5 * 2;

/**
 * Rows as the binary COPY data of `miner_rounds_recent` in STORED_COLUMN_LIST's order,
 * header and trailer included, written into one buffer as they are added (a round's few
 * hundred rows go in at a fraction of an INSERT's cost: no text to parse). Each row is
 * encoded when added and not kept: one row object can be refilled for the next.
 */
export class CopyRows {
  private b: Buffer;
  private o: number;

  /** `rows`: how many rows are expected (the buffer grows past it). */
  constructor(rows: number) {
    this.b = Buffer.allocUnsafe(COPY_HEADER.length + rows * FIXED + 2);
    this.o = COPY_HEADER.copy(this.b, 0);
  }

  /** No row added yet. */
  get empty(): boolean {
    return this.o === COPY_HEADER.length;
  }

  add(r: StoredRow): void {
    this.reserve(FIXED + (r.amounts === null ? 0 : 8 * r.amounts.length));
    const b = this.b;
    let o = b.writeInt16BE(21, this.o);
    o = i8(b, r.amount, o);
    o = i8(b, r.solBack, o);
    o = i8(b, r.ore, o);
    o = i8(b, r.oreMotherlode, o);
    o = i8(b, r.adminFee, o);
    o = i8(b, r.protocolFee, o);
    o = i8(b, r.oreValue, o);
    o = i4(b, r.roundId, o);
    o = i4(b, r.minerId, o);
    o = i4(b, r.squares, o);
    o = i4(b, r.signerId, o);
    o = i4(b, r.networkFee, o);
    o = i4(b, r.priorityFee, o);
    o = i4(b, r.executorFee, o);
    o = i4(b, r.checkpointDeposit, o);
    o = i2(b, r.slotsLeft, o);
    o = i2(b, r.slotsLeftLast, o);
    o = i2(b, r.deploys, o);
    o = i2(b, r.strategy, o);
    o = i2(b, r.flags, o);
    if (r.amounts === null) o = b.writeInt32BE(-1, o);
    else {
      o = b.writeInt32BE(8 * r.amounts.length, o);
      for (const a of r.amounts) o = int64(b, a, o);
    }
    this.o = o;
  }

  /** The COPY data: the header, every row added, the trailer. */
  finish(): Buffer {
    this.reserve(2);
    this.o = this.b.writeInt16BE(-1, this.o);
    return this.b.subarray(0, this.o);
  }

  private reserve(bytes: number): void {
    if (this.o + bytes <= this.b.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.b.length * 2, this.o + bytes));
    this.b.copy(grown, 0, 0, this.o);
    this.b = grown;
  }
}

// Each field: its length (-1: null), then its value.
function i8(b: Buffer, v: number | null, o: number): number {
  if (v === null) return b.writeInt32BE(-1, o);
  return int64(b, v, b.writeInt32BE(8, o));
}

function i4(b: Buffer, v: number | null, o: number): number {
  if (v === null) return b.writeInt32BE(-1, o);
  return b.writeInt32BE(v, b.writeInt32BE(4, o));
}

function i2(b: Buffer, v: number, o: number): number {
  return b.writeInt16BE(v, b.writeInt32BE(2, o));
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
