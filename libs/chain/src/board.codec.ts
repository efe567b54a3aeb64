import { DecodeError } from '@gridlab/errors';
import { readSafeU64, viewOf, writeU64 } from './bytes';
import { BOARD_DISCRIMINATOR, BOARD_LEN_V3, BOARD_LEN_V3_LEGACY, BOARD_OFFSETS as O, U64_MAX } from './ore-layout';
import { checkHeader } from './round.codec';

/** The ORE v3 Board: which round is current and its slot window. */
export interface BoardAccount {
  readonly roundId: number;
  readonly startSlot: number;
  /** null while the round waits for its first deploy (u64::MAX on chain). */
  readonly endSlot: number | null;
  /** Present only in the 40-byte layout. */
  readonly epochId: number | null;
}

export function decodeBoard(data: Uint8Array): BoardAccount {
  if (data.length !== BOARD_LEN_V3 && data.length !== BOARD_LEN_V3_LEGACY) {
    throw new DecodeError('unknown_account_length', `board account has unknown length ${data.length}`);
  }
  checkHeader(data, BOARD_DISCRIMINATOR, 'board');
  const view = viewOf(data);
  const endSlot = view.getBigUint64(O.endSlot, true);
  return {
    roundId: readSafeU64(view, O.roundId, 'round_id'),
    startSlot: readSafeU64(view, O.startSlot, 'start_slot'),
    endSlot: endSlot === U64_MAX ? null : readSafeU64(view, O.endSlot, 'end_slot'),
    epochId: data.length === BOARD_LEN_V3 ? readSafeU64(view, O.epochId, 'epoch_id') : null,
  };
}

export function encodeBoard(board: BoardAccount, length: number = BOARD_LEN_V3): Uint8Array {
  const data = new Uint8Array(length);
  const view = viewOf(data);
  data[0] = BOARD_DISCRIMINATOR;
  writeU64(view, O.roundId, board.roundId);
  writeU64(view, O.startSlot, board.startSlot);
  writeU64(view, O.endSlot, board.endSlot ?? U64_MAX);
  if (length === BOARD_LEN_V3) writeU64(view, O.epochId, board.epochId ?? 0);
  return data;
}
