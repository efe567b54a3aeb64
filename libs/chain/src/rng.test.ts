import { isVoidedSlotHash, slotHashRng, winningSquare } from './rng';

function hashOfWords(words: readonly bigint[]): Uint8Array {
  const buf = Buffer.alloc(32);
  words.forEach((w, i) => buf.writeBigUInt64LE(w, 8 * i));
  return new Uint8Array(buf);
}

describe('winning square', () => {
  it('xors the four little-endian words of the slot hash', () => {
    const hash = hashOfWords([0x0102n, 0x0400n, 0n, 0x10n]);
    expect(slotHashRng(hash)).toBe(0x0102n ^ 0x0400n ^ 0x10n);
    expect(winningSquare(hash)).toBe(Number((0x0102n ^ 0x0400n ^ 0x10n) % 25n));
  });

  it('reduces the full 64-bit value modulo 25 without losing precision', () => {
    const big = 0xffff_ffff_ffff_fff0n;
    const hash = hashOfWords([big, 0n, 0n, 0n]);
    expect(winningSquare(hash)).toBe(Number(big % 25n));
    // A Number conversion would round 2^64-16 and give a different square.
    expect(winningSquare(hash)).not.toBe(Number(big) % 25);
  });

  it('treats all-zero and all-0xFF hashes as voided', () => {
    expect(isVoidedSlotHash(new Uint8Array(32))).toBe(true);
    expect(isVoidedSlotHash(new Uint8Array(32).fill(0xff))).toBe(true);
    expect(winningSquare(new Uint8Array(32))).toBeNull();
    expect(winningSquare(new Uint8Array(32).fill(0xff))).toBeNull();
    const almost = new Uint8Array(32).fill(0xff);
    almost[31] = 0xfe;
    expect(isVoidedSlotHash(almost)).toBe(false);
  });
});
