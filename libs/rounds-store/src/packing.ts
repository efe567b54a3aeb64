const TWO_32 = 0x1_0000_0000;
/** The high word of u64::MAX; no stored figure (below 2^53) has it. */
const UNKNOWN_HIGH = 0xffff_ffff;

/**
 * Packs per-square integers as little-endian u64 (the on-chain layout). Values are
 * below 2^53 (checked at ingestion), so two 32-bit halves are exact and avoid a BigInt
 * per value on the import hot path.
 */
export function packSquares(values: readonly number[]): Buffer {
  const buf = Buffer.allocUnsafe(values.length * 8);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    buf.writeUInt32LE(v % TWO_32, i * 8);
    buf.writeUInt32LE(Math.floor(v / TWO_32), i * 8 + 4);
  }
  return buf;
}

/** Inverse of packSquares; u64::MAX (a partly known round's unknown figure) reads as null. */
export function unpackSquares(buf: Uint8Array): (number | null)[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out = new Array<number | null>(buf.byteLength / 8);
  for (let i = 0; i < out.length; i++) {
    const high = view.getUint32(i * 8 + 4, true);
    out[i] = high === UNKNOWN_HIGH ? null : view.getUint32(i * 8, true) + high * TWO_32;
  }
  return out;
}
