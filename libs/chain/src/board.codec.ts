import { DecodeError } from '@gridlab/errors';
import { readSafeU64, viewOf, writeU64 } from './bytes';
import { BOARD_DISCRIMINATOR, BOARD_LEN_V3, BOARD_LEN_V3_LEGACY, BOARD_OFFSETS as O, ROUND_LEN_CURRENT, U64_MAX } from './ore-layout';
import { checkHeader } from './round.codec';

/** The ORE Board: which round is current and its slot window. */
export interface BoardAccount {
  readonly roundId: number;
  readonly startSlot: number;
  /** null while the round waits for its first deploy (u64::MAX on chain). */
  readonly endSlot: number | null;
  /**
   * The 40-byte board's u64 @32 (null for 32 bytes): `epoch_id` while rounds are v3,
   * `production_cost_ema` (lamports per whole ORE) once they are 952 bytes. Which one
   * it is depends on the layout of the round it points at: see `productionCost`.
   */
  readonly epochOrCost: number | null;
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
    epochOrCost: data.length === BOARD_LEN_V3 ? readSafeU64(view, O.epochOrCost, 'epoch_or_cost') : null,
  };
}

export function encodeBoard(board: BoardAccount, length: number = BOARD_LEN_V3): Uint8Array {
  const data = new Uint8Array(length);
  const view = viewOf(data);
  data[0] = BOARD_DISCRIMINATOR;
  writeU64(view, O.roundId, board.roundId);
  writeU64(view, O.startSlot, board.startSlot);
  writeU64(view, O.endSlot, board.endSlot ?? U64_MAX);
  if (length === BOARD_LEN_V3) writeU64(view, O.epochOrCost, board.epochOrCost ?? 0);
  return data;
}

/**
 * The board's production cost (lamports per whole ORE) when its rounds are of the
 * 952-byte layout; null while they are v3 (the same word is then the epoch id).
 */
export function productionCost(board: BoardAccount, roundLayout: number): number | null {
  return roundLayout === ROUND_LEN_CURRENT ? board.epochOrCost : null;
}
