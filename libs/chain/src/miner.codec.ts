import { DecodeError } from '@gridlab/errors';
import { readSafeU64, viewOf } from './bytes';
import { checkHeader } from './round.codec';

/** What a wallet's Miner account (`api/src/state/miner.rs`) holds for it to claim. */
export interface MinerClaims {
  /** `rewards_sol`: lamports returned to it and not yet claimed. */
  readonly rewardsSol: number;
  /** `rewards_ore`: ORE base units mined and not yet claimed (claiming takes the 10% refining fee). */
  readonly rewardsOre: number;
  /** `refined_ore`: ORE base units earned from others' refining fees (no fee on claim). */
  readonly refinedOre: number;
  /** `checkpoint_id`: the last round the account was checkpointed for. */
  readonly checkpointId: number;
}

export const MINER_DISCRIMINATOR = 103;

interface ClaimOffsets {
  readonly checkpointId: number;
  readonly rewardsSol: number;
  readonly rewardsOre: number;
  readonly refinedOre: number;
}

/**
 * Offsets by account length, from the program's source: 8-byte header, then the packed
 * `Miner` (`Numeric` = I80F48, 16 bytes).
 *
 * - 536 bytes (until 38b0110, 2025-12-04) and 544 (`lifetime_deployed` appended; 12274aa):
 *   authority @8, deployed[25] @40, cumulative[25] @240, checkpoint_fee @440,
 *   checkpoint_id @448, last_claim_ore_at @456, last_claim_sol_at @464, rewards_factor @472,
 *   rewards_sol @488, rewards_ore @496, refined_ore @504, ...
 * - 752 bytes (since the 2026-06-25 migration, bd617d1; the same at 3112ab7 and HEAD):
 *   authority @8, auto_return @40, checkpoint_id @48, checkpoint_fee @56, deployed[25] @64,
 *   mass[25] @264, cumulative[25] @464, round_id @664, rewards_factor @672, rewards_sol @688,
 *   refined_ore @696, rewards_ore @704, ...
 */
const CLAIM_OFFSETS: Readonly<Record<number, ClaimOffsets>> = {
  536: { checkpointId: 448, rewardsSol: 488, rewardsOre: 496, refinedOre: 504 },
  544: { checkpointId: 448, rewardsSol: 488, rewardsOre: 496, refinedOre: 504 },
  752: { checkpointId: 48, rewardsSol: 688, rewardsOre: 704, refinedOre: 696 },
};

/** The claimable figures of a Miner account; any length but the program's is a DecodeError (never guessed at). */
export function decodeMinerClaims(data: Uint8Array): MinerClaims {
  const offsets = CLAIM_OFFSETS[data.length];
  if (offsets === undefined) throw new DecodeError('unknown_account_length', `miner account has unknown length ${data.length}`);
  checkHeader(data, MINER_DISCRIMINATOR, 'miner');
  const view = viewOf(data);
  return {
    rewardsSol: readSafeU64(view, offsets.rewardsSol, 'rewards_sol'),
    rewardsOre: readSafeU64(view, offsets.rewardsOre, 'rewards_ore'),
    refinedOre: readSafeU64(view, offsets.refinedOre, 'refined_ore'),
    checkpointId: readSafeU64(view, offsets.checkpointId, 'checkpoint_id'),
  };
}
