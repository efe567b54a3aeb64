import { isVoidedSlotHash, slotHashRng, winningSquare } from './rng';
import { settleRound } from './settlement';

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

describe('settleRound', () => {
  const deployed = Array.from({ length: 25 }, (_, i) => 1_000_000_000 + i * 7);

  it('vaults 10% of the losing SOL after the 1% fee and pays the rest as winnings', () => {
    const total = deployed.reduce((a, b) => a + b, 0);
    const losing = total - deployed[3]!;
    const net = Math.floor((losing * 99) / 100);
    const totals = settleRound(deployed, 3);
    expect(totals.totalDeployed).toBe(total);
    expect(totals.totalWinnings).toBe(Math.floor((net * 9) / 10));
    expect(totals.totalVaulted).toBe(net - totals.totalWinnings);
    expect(totals.adminFee).toBe(total - net - Math.floor((deployed[3]! * 99) / 100));
  });

  it('refunds a voided round', () => {
    expect(settleRound(deployed, null)).toMatchObject({ totalWinnings: 0, totalVaulted: 0, adminFee: 0 });
  });
});
