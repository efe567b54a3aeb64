/**
 * Slots and time of the devnet's chain. Chains start far from slot 0; so does ours, so
 * slot arithmetic is exercised realistically. Block time is a pure function of the slot
 * (400 ms a slot from a fixed moment), so the same seed gives the same block times, and
 * history and live rounds share one clock however fast the devnet's slots tick.
 */
export const GENESIS_SLOT = 250_000_000;
/** The block time of GENESIS_SLOT: 2026-11-01T00:00:00Z. */
const GENESIS_UNIX_S = 1_793_491_200;
const SLOT_MS = 400;

/** Unix seconds of a slot's block. */
export function blockTimeOf(slot: number): number {
  return GENESIS_UNIX_S + Math.floor(((slot - GENESIS_SLOT) * SLOT_MS) / 1000);
}
