/**
 * ORE v3 account layouts (SPEC 3). Account data = 8-byte header (byte 0 discriminator,
 * bytes 1..7 zero) followed by a packed little-endian struct. Offsets are absolute.
 */
export const SQUARES = 25;
export const HEADER_BYTES = 8;

export const BOARD_DISCRIMINATOR = 105;
export const ROUND_DISCRIMINATOR = 109;

/** Board before 2025-12-04 (no epoch id) and after. */
export const BOARD_LEN_V3_LEGACY = 32;
export const BOARD_LEN_V3 = 40;

/** Round before 2025-12-04 (no total_miners) and after; 952 is the v4 program's round. */
export const ROUND_LEN_V3_LEGACY = 560;
export const ROUND_LEN_V3 = 568;
export const ROUND_LEN_V4 = 952;

export const BOARD_OFFSETS = { roundId: 8, startSlot: 16, endSlot: 24, epochId: 32 } as const;

export const ROUND_OFFSETS = {
  id: 8,
  deployed: 16,
  slotHash: 216,
  count: 248,
  expiresAt: 448,
  motherlode: 456,
  rentPayer: 464,
  topMiner: 496,
  topMinerReward: 528,
  totalDeployed: 536,
} as const;

/** Tail of the 568-byte layout. */
export const ROUND_TAIL_V3 = { totalMiners: 544, totalVaulted: 552, totalWinnings: 560 } as const;
/** Tail of the 560-byte layout (no total_miners). */
export const ROUND_TAIL_V3_LEGACY = { totalVaulted: 544, totalWinnings: 552 } as const;

export const U64_MAX = 0xffff_ffff_ffff_ffffn;
