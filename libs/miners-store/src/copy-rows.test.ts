import { CopyRows } from './copy-rows';
import type { StoredRow } from './row';

const EXTREMES = [0, 1, -1, 4_294_967_295, 4_294_967_296, -4_294_967_296, -4_294_967_297, 2 ** 52 + 3, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];

/** A row's int8 fields in COPY order, and its amounts: the only fields written as int8. */
function row(v: number, amounts: number[] | null): StoredRow {
  return {
    amount: v,
    solBack: -v,
    ore: v,
    oreMotherlode: null,
    adminFee: v,
    protocolFee: -v,
    oreValue: v,
    roundId: 7,
    minerId: 8,
    squares: 3,
    signerId: 9,
    networkFee: 5000,
    priorityFee: null,
    executorFee: 0,
    checkpointDeposit: 1,
    slotsLeft: 12,
    slotsLeftLast: 3,
    deploys: 2,
    strategy: -1,
    flags: 5,
    amounts,
  };
}

/** The int8 fields of a binary COPY (a row's first seven fields, and its amounts, the last), as PostgreSQL reads them. */
function int8Fields(copy: Buffer): bigint[] {
  const out: bigint[] = [];
  let o = 19;
  for (let fields = copy.readInt16BE(o); fields !== -1; fields = copy.readInt16BE(o)) {
    o += 2;
    for (let f = 0; f < fields; f++) {
      const length = copy.readInt32BE(o);
      o += 4;
      if (length < 0) continue;
      if (f < 7) out.push(copy.readBigInt64BE(o));
      if (f === fields - 1) for (let a = 0; a < length; a += 8) out.push(copy.readBigInt64BE(o + a));
      o += length;
    }
  }
  return out;
}

describe('CopyRows', () => {
  it('writes every safe integer as the int8 it is, negative and beyond 32 bits included', () => {
    for (const v of EXTREMES) {
      const copy = new CopyRows(1);
      copy.add(row(v, [v, -v, 1]));
      // amount, sol_back, ore, (ore_motherlode null), admin_fee, protocol_fee, ore_value, then the amounts.
      expect(int8Fields(copy.finish())).toEqual([v, -v, v, v, -v, v, v, -v, 1].map((x) => BigInt(x)));
    }
  });

  it('grows past the rows it expected, every row kept, the header and trailer in place', () => {
    const copy = new CopyRows(1);
    expect(copy.empty).toBe(true);
    const amounts = Array.from({ length: 25 }, (_, s) => s + 1);
    for (let v = 0; v < 40; v++) copy.add(row(v, v % 2 === 0 ? amounts : null));
    const data = copy.finish();
    expect(copy.empty).toBe(false);
    expect(data.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
    expect(data.readInt16BE(data.length - 2)).toBe(-1);
    const expected = Array.from({ length: 40 }, (_, v) => [v, -v, v, v, -v, v, ...(v % 2 === 0 ? amounts : [])]).flat();
    expect(int8Fields(data)).toEqual(expected.map((x) => BigInt(x)));
  });

  it('refuses a figure past its column rather than store it wrapped', () => {
    const copy = new CopyRows(1);
    expect(() => copy.add({ ...row(1, null), priorityFee: 2 ** 31 })).toThrow(/int4/);
    expect(() => copy.add({ ...row(1, null), deploys: 40_000 })).toThrow(/int2/);
  });
});
