import { SQUARES } from './ore-layout';

/**
 * True when a round's slot hash carries no randomness (all 0x00: never reset; all 0xFF:
 * the reset found no slot hash). Such a round was voided and its stakes refunded.
 */
export function isVoidedSlotHash(slotHash: Uint8Array): boolean {
  if (slotHash.length !== 32) throw new RangeError('slot hash must be 32 bytes');
  const first = slotHash[0];
  if (first !== 0x00 && first !== 0xff) return false;
  return slotHash.every((b) => b === first);
}

/** `h[0..8] ^ h[8..16] ^ h[16..24] ^ h[24..32]`, each a little-endian u64. */
export function slotHashRng(slotHash: Uint8Array): bigint {
  if (slotHash.length !== 32) throw new RangeError('slot hash must be 32 bytes');
  const view = new DataView(slotHash.buffer, slotHash.byteOffset, 32);
  return view.getBigUint64(0, true) ^ view.getBigUint64(8, true) ^ view.getBigUint64(16, true) ^ view.getBigUint64(24, true);
}

/** The winning square (0..24) of a settled round, or null when the round was voided. */
export function winningSquare(slotHash: Uint8Array): number | null {
  if (isVoidedSlotHash(slotHash)) return null;
  return Number(slotHashRng(slotHash) % BigInt(SQUARES));
}
