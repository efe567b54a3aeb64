import { DecodeError } from '@gridlab/errors';

/** The high half of 2^53 - 1. */
const MAX_SAFE_HIGH = 0x1f_ffff;

/**
 * Reads a u64 and returns it as a number, rejecting values above 2^53 - 1: lamport
 * figures that large are not realistic, and a silently rounded one would be wrong.
 */
export function readSafeU64(view: DataView, offset: number, field: string): number {
  // Two 32-bit halves: no BigInt allocated for the values that fit (all but broken ones).
  const high = view.getUint32(offset + 4, true);
  if (high > MAX_SAFE_HIGH) {
    throw new DecodeError('value_out_of_range', `${field} = ${view.getBigUint64(offset, true)} exceeds 2^53 - 1`);
  }
  return high * 0x1_0000_0000 + view.getUint32(offset, true);
}

/** A u64 as the nearest number (what `Number(view.getBigUint64(...))` gives, without the BigInt). */
export function readU64Number(view: DataView, offset: number): number {
  return view.getUint32(offset + 4, true) * 0x1_0000_0000 + view.getUint32(offset, true);
}

/** An i64 as the nearest number (what `Number(view.getBigInt64(...))` gives, without the BigInt). */
export function readI64Number(view: DataView, offset: number): number {
  return view.getInt32(offset + 4, true) * 0x1_0000_0000 + view.getUint32(offset, true);
}

/** Whether a u64 is u64::MAX. */
export function isU64Max(view: DataView, offset: number): boolean {
  return view.getUint32(offset, true) === 0xffff_ffff && view.getUint32(offset + 4, true) === 0xffff_ffff;
}

export function writeU64(view: DataView, offset: number, value: number | bigint): void {
  view.setBigUint64(offset, BigInt(value), true);
}

export function viewOf(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
