/**
 * ORE account layouts (SPEC 3): v3 (560/568-byte rounds) and the program as deployed
 * since its 2026-06-25 migration (952-byte rounds). Account data = 8-byte header (byte 0
 * discriminator, bytes 1..7 zero) followed by a packed little-endian struct. Offsets
 * are absolute.
 */
export const SQUARES = 25;
/** Bit s for every square s: a mask of squares holds no other bit. */
export const ALL_SQUARES = (1 << SQUARES) - 1;
export const HEADER_BYTES = 8;

export const BOARD_DISCRIMINATOR = 105;
export const ROUND_DISCRIMINATOR = 109;

/**
 * Board before 2025-12-04 (no epoch id) and after. The 40-byte board's u64 @32 is
 * `epoch_id` while rounds are v3 and `production_cost_ema` once they are 952 bytes.
 */
export const BOARD_LEN_V3_LEGACY = 32;
export const BOARD_LEN_V3 = 40;

/** Round before 2025-12-04 (no total_miners), after, and since the 2026-06-25 migration. */
export const ROUND_LEN_V3_LEGACY = 560;
export const ROUND_LEN_V3 = 568;
export const ROUND_LEN_CURRENT = 952;

export const BOARD_OFFSETS = { roundId: 8, startSlot: 16, endSlot: 24, epochOrCost: 32 } as const;

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

/** The 952-byte round (`api/src/state/round.rs` since the 2026-06-25 migration). */
export const ROUND_OFFSETS_CURRENT = {
  id: 8,
  deployed: 16,
  mass: 216,
  count: 416,
  slotHash: 616,
  expiresAt: 648,
  motherlode: 656,
  rentPayer: 664,
  rewards: 696,
  totalVaulted: 896,
  /** `total_winnings`, named `total_returned_sol` since 2026-08-12. */
  totalWinnings: 904,
  totalMiners: 912,
  topMiner: 920,
} as const;

/** `top_miner` of a round whose ORE reward was split pro rata on the winning square. */
export const SPLIT_ADDRESS = 'SpLiT11111111111111111111111111111111111112';

/** The ORE program's id on mainnet (the default everywhere one is configured). */
export const ORE_PROGRAM_ID = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';

/** Tail of the 568-byte layout. */
export const ROUND_TAIL_V3 = { totalMiners: 544, totalVaulted: 552, totalWinnings: 560 } as const;
/** Tail of the 560-byte layout (no total_miners). */
export const ROUND_TAIL_V3_LEGACY = { totalVaulted: 544, totalWinnings: 552 } as const;

export const U64_MAX = 0xffff_ffff_ffff_ffffn;
