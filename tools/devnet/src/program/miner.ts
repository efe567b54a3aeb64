/**
 * The Miner and Treasury accounts of the v3 program and what checkpoint and the claims do
 * to them, transcribed from regolith-labs/ore at 12274aa (the same at 7d18eda):
 * `api/src/state/miner.rs` (`Miner`, `claim_ore`, `claim_sol`, `update_rewards`),
 * `api/src/state/treasury.rs`, `program/src/checkpoint.rs`, `claim_sol.rs`, `claim_ore.rs`.
 * A miner's SOL and ORE are u64 counters in its account; the SOL itself sits in the round
 * account until checkpoint moves it to the Miner account, and claim_sol to the wallet.
 */
import bs58 from 'bs58';
import { numericFraction, numericFromU64, numericMul, numericToU64 } from './numeric';
import { Pod, PodReader } from './pod';

const SQUARES = 25;
const MINER_DISCRIMINATOR = 103;
const TREASURY_DISCRIMINATOR = 104;
/** `8 + size_of::<Miner>()` since `lifetime_deployed` (38b0110, 2025-12-04). */
export const MINER_V3_LENGTH = 544;
/** The Treasury with the placeholders of bd3ab50 (2025-12-04). */
export const TREASURY_V3_LENGTH = 96;
/** `CHECKPOINT_FEE` (`api/src/consts.rs`): 0.00001 SOL kept in the Miner account for whoever checkpoints it late. */
export const CHECKPOINT_FEE = 10_000;
/** `TWELVE_HOURS_SLOTS`: in a round's last 12 hours before expiry anyone may checkpoint a miner and take its fee. */
const TWELVE_HOURS_SLOTS = 108_000;
/** `SPLIT_ADDRESS` (`api/src/consts.rs`), the top miner of a round whose ORE prize is split. */
const SPLIT_ADDRESS = bs58.decode('SpLiT11111111111111111111111111111111111112');

/** A `Miner` (12274aa), field by field; amounts as numbers, `rewards_factor` as the Numeric's bits. */
export interface MinerV3 {
  authority: Uint8Array;
  deployed: number[];
  cumulative: number[];
  checkpointFee: number;
  checkpointId: number;
  lastClaimOreAt: number;
  lastClaimSolAt: number;
  rewardsFactor: bigint;
  rewardsSol: number;
  rewardsOre: number;
  refinedOre: number;
  roundId: number;
  lifetimeRewardsSol: number;
  lifetimeRewardsOre: number;
  lifetimeDeployed: number;
}

/** The Treasury fields checkpoint and the claims read and write (the others are kept as they are). */
export interface TreasuryV3 {
  balance: bigint;
  bufferA: bigint;
  motherlode: bigint;
  minerRewardsFactor: bigint;
  stakeRewardsFactor: bigint;
  bufferB: bigint;
  totalRefined: bigint;
  totalStaked: bigint;
  totalUnclaimed: bigint;
}

/** A Miner as `create_program_account` leaves it (zeroed) with its authority set, as deploy and automate open one. */
export function newMiner(authority: Uint8Array): MinerV3 {
  return {
    authority,
    deployed: new Array<number>(SQUARES).fill(0),
    cumulative: new Array<number>(SQUARES).fill(0),
    checkpointFee: 0,
    checkpointId: 0,
    lastClaimOreAt: 0,
    lastClaimSolAt: 0,
    rewardsFactor: 0n,
    rewardsSol: 0,
    rewardsOre: 0,
    refinedOre: 0,
    roundId: 0,
    lifetimeRewardsSol: 0,
    lifetimeRewardsOre: 0,
    lifetimeDeployed: 0,
  };
}

/** `Miner` at 12274aa in declaration order. */
export function minerV3(m: MinerV3): Uint8Array {
  return new Pod(MINER_V3_LENGTH)
    .header(MINER_DISCRIMINATOR)
    .raw(m.authority)
    .u64s(m.deployed, SQUARES)
    .u64s(m.cumulative, SQUARES)
    .u64(m.checkpointFee)
    .u64(m.checkpointId)
    .i64(m.lastClaimOreAt)
    .i64(m.lastClaimSolAt)
    .i128(m.rewardsFactor)
    .u64(m.rewardsSol)
    .u64(m.rewardsOre)
    .u64(m.refinedOre)
    .u64(m.roundId)
    .u64(m.lifetimeRewardsSol)
    .u64(m.lifetimeRewardsOre)
    .u64(m.lifetimeDeployed)
    .done();
}

export function readMinerV3(bytes: Uint8Array): MinerV3 {
  if (bytes.length !== MINER_V3_LENGTH || bytes[0] !== MINER_DISCRIMINATOR) throw new RangeError(`not a ${MINER_V3_LENGTH}-byte Miner account`);
  const r = new PodReader(bytes);
  return {
    authority: r.raw(),
    deployed: r.squares(),
    cumulative: r.squares(),
    checkpointFee: r.u64(),
    checkpointId: r.u64(),
    lastClaimOreAt: r.i64(),
    lastClaimSolAt: r.i64(),
    rewardsFactor: r.i128(),
    rewardsSol: r.u64(),
    rewardsOre: r.u64(),
    refinedOre: r.u64(),
    roundId: r.u64(),
    lifetimeRewardsSol: r.u64(),
    lifetimeRewardsOre: r.u64(),
    lifetimeDeployed: r.u64(),
  };
}

/** `Treasury` at 12274aa in declaration order. */
export function treasuryV3(t: TreasuryV3): Uint8Array {
  return new Pod(TREASURY_V3_LENGTH)
    .header(TREASURY_DISCRIMINATOR)
    .u64(t.balance)
    .u64(t.bufferA)
    .u64(t.motherlode)
    .i128(t.minerRewardsFactor)
    .i128(t.stakeRewardsFactor)
    .u64(t.bufferB)
    .u64(t.totalRefined)
    .u64(t.totalStaked)
    .u64(t.totalUnclaimed)
    .done();
}

export function readTreasuryV3(bytes: Uint8Array): TreasuryV3 {
  if (bytes.length !== TREASURY_V3_LENGTH || bytes[0] !== TREASURY_DISCRIMINATOR) throw new RangeError(`not a ${TREASURY_V3_LENGTH}-byte Treasury account`);
  const r = new PodReader(bytes);
  return {
    balance: r.u64n(),
    bufferA: r.u64n(),
    motherlode: r.u64n(),
    minerRewardsFactor: r.i128(),
    stakeRewardsFactor: r.i128(),
    bufferB: r.u64n(),
    totalRefined: r.u64n(),
    totalStaked: r.u64n(),
    totalUnclaimed: r.u64n(),
  };
}

/**
 * `Miner::update_rewards`: the refining fees shared since the miner last looked
 * (`miner_rewards_factor` growth times its unclaimed ORE) become refined ORE; the miner
 * then remembers the factor.
 */
export function updateRewards(miner: MinerV3, treasury: TreasuryV3): void {
  if (treasury.minerRewardsFactor > miner.rewardsFactor) {
    const personal = numericToU64(numericMul(treasury.minerRewardsFactor - miner.rewardsFactor, numericFromU64(miner.rewardsOre)));
    miner.refinedOre += personal;
    miner.lifetimeRewardsOre += personal;
  }
  miner.rewardsFactor = treasury.minerRewardsFactor;
}

/**
 * `Miner::claim_ore`: pays out refined and unrefined ORE; while anyone else still has
 * unclaimed ORE, 10% of the unrefined part is the refining fee, shared among them by
 * raising `miner_rewards_factor` by `fee / total_unclaimed`. Returns the ORE sent.
 */
export function claimOre(miner: MinerV3, treasury: TreasuryV3, unixTimestamp: number): number {
  updateRewards(miner, treasury);
  const refined = miner.refinedOre;
  const rewards = miner.rewardsOre;
  let amount = refined + rewards;
  miner.refinedOre = 0;
  miner.rewardsOre = 0;
  treasury.totalUnclaimed -= BigInt(rewards);
  treasury.totalRefined -= BigInt(refined);
  miner.lastClaimOreAt = unixTimestamp;
  if (treasury.totalUnclaimed > 0n) {
    const fee = Math.floor(rewards / 10);
    amount -= fee;
    treasury.minerRewardsFactor += numericFraction(fee, treasury.totalUnclaimed);
    treasury.totalRefined += BigInt(fee);
    miner.lifetimeRewardsOre -= fee;
  }
  return amount;
}

/** `Miner::claim_sol`: the SOL the Miner account holds for its authority, sent to it. Returns the lamports sent. */
export function claimSol(miner: MinerV3, unixTimestamp: number): number {
  const amount = miner.rewardsSol;
  miner.rewardsSol = 0;
  miner.lastClaimSolAt = unixTimestamp;
  return amount;
}

/** What checkpoint reads of the round it settles the miner against (the settled Round account). */
export interface CheckpointRound {
  readonly id: number;
  readonly deployed: readonly number[];
  readonly slotHash: Uint8Array;
  readonly expiresAt: number;
  readonly motherlode: number;
  readonly topMiner: Uint8Array;
  /** `top_miner_reward` (v3). */
  readonly reward: number;
  readonly totalDeployed: number;
  readonly totalWinnings: number;
}

/** What one checkpoint did. */
export interface CheckpointOutcome {
  readonly rewardsSol: number;
  readonly rewardsOre: number;
  /** Lamports the checkpointer took from the Miner account (late checkpoints only). */
  readonly botFee: number;
  /** The round's `top_miner` after: a non-split round's is set to the miner holding the sampled lamport. */
  readonly topMiner: Uint8Array;
  /** Why the program returned early, if it did: nothing but `checkpoint_id` (or nothing at all) changed. */
  readonly early: 'already' | 'closed' | 'not-valid' | 'expired' | null;
}

/**
 * `process_checkpoint` (12274aa): settles the miner's deploys in the round into
 * `rewards_sol`/`rewards_ore`. A winning stake gets back itself less a 1% fee (at least 1
 * lamport) plus its share of `total_winnings`; its ORE is its share of the prize when
 * split, the whole prize if it holds the sampled lamport, plus its share of the motherlode.
 * A voided round refunds every stake. `round` null: the round account is gone.
 * `sample` and `winning` are the round's draw (`top_miner_sample`, `winning_square`),
 * null for a voided round.
 */
export function checkpoint(
  miner: MinerV3,
  round: CheckpointRound | null,
  draw: { readonly winning: number; readonly sample: bigint } | null,
  treasury: TreasuryV3,
  clock: { readonly slot: number; readonly boardRoundId: number },
): CheckpointOutcome {
  const none = (early: CheckpointOutcome['early']): CheckpointOutcome => ({ rewardsSol: 0, rewardsOre: 0, botFee: 0, topMiner: round?.topMiner ?? new Uint8Array(32), early });
  if (miner.checkpointId === miner.roundId) return none('already');
  if (round === null) {
    // The round was closed: the miner forfeits whatever it had won.
    miner.checkpointId = miner.roundId;
    return none('closed');
  }
  if (round.id === clock.boardRoundId || round.id !== miner.roundId || round.slotHash.every((b) => b === 0)) return none('not-valid');
  if (clock.slot >= round.expiresAt) {
    miner.checkpointId = miner.roundId;
    return none('expired');
  }
  let botFee = 0;
  if (clock.slot >= round.expiresAt - TWELVE_HOURS_SLOTS) {
    botFee = miner.checkpointFee;
    miner.checkpointFee = 0;
  }
  let rewardsSol = 0;
  let rewardsOre = 0;
  let topMiner = round.topMiner;
  if (draw !== null) {
    const w = draw.winning;
    const mine = miner.deployed[w]!;
    if (mine > 0) {
      const onSquare = round.deployed[w]!;
      if (onSquare < mine) throw new Error('Invalid round deployed amount');
      const share = (total: number): number => Number((BigInt(total) * BigInt(mine)) / BigInt(onSquare));
      rewardsSol = mine - Math.max(1, Math.floor(mine / 100)) + share(round.totalWinnings);
      if (equal(round.topMiner, SPLIT_ADDRESS)) rewardsOre = share(round.reward);
      else if (draw.sample >= BigInt(miner.cumulative[w]!) && draw.sample < BigInt(miner.cumulative[w]! + mine)) {
        rewardsOre = round.reward;
        topMiner = miner.authority;
      }
      if (round.motherlode > 0) rewardsOre += share(round.motherlode);
    }
  } else {
    if (round.totalDeployed !== 0) throw new Error('Round total deployed should be zero.');
    rewardsSol = miner.deployed.reduce((a, b) => a + b, 0);
  }
  updateRewards(miner, treasury);
  miner.checkpointId = round.id;
  miner.rewardsOre += rewardsOre;
  miner.lifetimeRewardsOre += rewardsOre;
  miner.rewardsSol += rewardsSol;
  miner.lifetimeRewardsSol += rewardsSol;
  treasury.totalUnclaimed += BigInt(rewardsOre);
  return { rewardsSol, rewardsOre, botFee, topMiner, early: null };
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
