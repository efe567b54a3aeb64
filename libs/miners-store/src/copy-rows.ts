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
  /** The buffer's bytes as a DataView: its setters are the engine's own, quicker than Buffer's checked writes. */
  private v: DataView;
  private o: number;

  /** `rows`: how many rows are expected (the buffer grows past it). */
  constructor(rows: number) {
    this.b = Buffer.allocUnsafe(COPY_HEADER.length + rows * FIXED + 2);
    this.v = new DataView(this.b.buffer, this.b.byteOffset, this.b.byteLength);
    this.o = COPY_HEADER.copy(this.b, 0);
  }

  /** No row added yet. */
  get empty(): boolean {
    return this.o === COPY_HEADER.length;
  }

  add(r: StoredRow): void {
    this.reserve(FIXED + (r.amounts === null ? 0 : 8 * r.amounts.length));
    const v = this.v;
    let o = this.o;
    v.setInt16(o, 21);
    o = i8(v, r.amount, o + 2);
    o = i8(v, r.solBack, o);
    o = i8(v, r.ore, o);
    o = i8(v, r.oreMotherlode, o);
    o = i8(v, r.adminFee, o);
    o = i8(v, r.protocolFee, o);
    o = i8(v, r.oreValue, o);
    o = i4(v, r.roundId, o);
    o = i4(v, r.minerId, o);
    o = i4(v, r.squares, o);
    o = i4(v, r.signerId, o);
    o = i4(v, r.networkFee, o);
    o = i4(v, r.priorityFee, o);
    o = i4(v, r.executorFee, o);
    o = i4(v, r.checkpointDeposit, o);
    o = i2(v, r.slotsLeft, o);
    o = i2(v, r.slotsLeftLast, o);
    o = i2(v, r.deploys, o);
    o = i2(v, r.strategy, o);
    o = i2(v, r.flags, o);
    if (r.amounts === null) {
      v.setInt32(o, -1);
      o += 4;
    } else {
      v.setInt32(o, 8 * r.amounts.length);
      o += 4;
      for (const a of r.amounts) o = int64(v, a, o);
    }
    this.o = o;
  }

  /** The COPY data: the header, every row added, the trailer. */
  finish(): Buffer {
    this.reserve(2);
    this.v.setInt16(this.o, -1);
    this.o += 2;
    return this.b.subarray(0, this.o);
  }

  private reserve(bytes: number): void {
    if (this.o + bytes <= this.b.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.b.length * 2, this.o + bytes));
    this.b.copy(grown, 0, 0, this.o);
    this.b = grown;
    this.v = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }
}

// Each field: its length (-1: null), then its value, big-endian; the offset after it.
function i8(v: DataView, x: number | null, o: number): number {
  if (x === null) {
    v.setInt32(o, -1);
    return o + 4;
  }
  v.setInt32(o, 8);
  return int64(v, x, o + 4);
}

function i4(v: DataView, x: number | null, o: number): number {
  if (x === null) {
    v.setInt32(o, -1);
    return o + 4;
  }
  // DataView wraps what does not fit; a figure past its column is refused, not stored wrong.
  if ((x | 0) !== x) throw new RangeError(`${x} does not fit an int4 column`);
  v.setInt32(o, 4);
  v.setInt32(o + 4, x);
  return o + 8;
}

function i2(v: DataView, x: number, o: number): number {
  if ((x << 16) >> 16 !== x) throw new RangeError(`${x} does not fit an int2 column`);
  v.setInt32(o, 2);
  v.setInt16(o + 4, x);
  return o + 6;
}

const TWO_32 = 4294967296;

/**
 * A safe integer as a big-endian two's-complement int8, without a BigInt (a row has up to
 * 32 of them; history writes hundreds of thousands of rows): the high word is the floored
 * quotient by 2^32, the low word the remainder (ToUint32).
 */
function int64(v: DataView, x: number, o: number): number {
  v.setInt32(o, Math.floor(x / TWO_32));
  v.setUint32(o + 4, x >>> 0);
  return o + 8;
}
