import { DecodeError } from '@gridlab/errors';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Reads a u64 and returns it as a number, rejecting values above 2^53 - 1: lamport
 * figures that large are not realistic, and a silently rounded one would be wrong.
 */
export function readSafeU64(view: DataView, offset: number, field: string): number {
  const value = view.getBigUint64(offset, true);
  if (value > MAX_SAFE) {
    throw new DecodeError('value_out_of_range', `${field} = ${value} exceeds 2^53 - 1`);
  }
  return Number(value);
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
