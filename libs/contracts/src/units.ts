/** The units every figure of the wire is in: lamports (SOL) and ORE base units (11 decimals). */
export const LAMPORTS_PER_SOL = 1_000_000_000;
/** ORE base units in one ORE (the mint's 11 decimals; the program's `ONE_ORE`). */
export const ORE_BASE_UNITS = 100_000_000_000;
