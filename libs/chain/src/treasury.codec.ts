import { DecodeError } from '@gridlab/errors';
import { readSafeU64, viewOf, writeU64 } from './bytes';
import { checkHeader } from './round.codec';

/** The ORE Treasury account (`api/src/state/treasury.rs`): what the live board needs of it. */
export interface TreasuryAccount {
  /** ORE base units in the motherlode pool, paid pro rata on the winning square one round in 500. */
  readonly motherlode: number;
}

export const TREASURY_DISCRIMINATOR = 104;

/**
 * `motherlode`'s offset by account length: 48 bytes since the 2026-06-25 migration
 * (motherlode first), 96 bytes from 2025-12-04 (after `balance` and a buffer), 80 bytes
 * from 2025-10-08 (after `balance`).
 */
const MOTHERLODE_OFFSET: Readonly<Record<number, number>> = { 48: 8, 96: 24, 80: 16 };

export function decodeTreasury(data: Uint8Array): TreasuryAccount {
  const offset = MOTHERLODE_OFFSET[data.length];
  if (offset === undefined) throw new DecodeError('unknown_account_length', `treasury account has unknown length ${data.length}`);
  checkHeader(data, TREASURY_DISCRIMINATOR, 'treasury');
  return { motherlode: readSafeU64(viewOf(data), offset, 'motherlode') };
}

/** The 48-byte Treasury as the program writes it today (the rest of the struct zero). */
export function encodeTreasury(treasury: TreasuryAccount): Uint8Array {
  const data = new Uint8Array(48);
  data[0] = TREASURY_DISCRIMINATOR;
  writeU64(viewOf(data), 8, treasury.motherlode);
  return data;
}
