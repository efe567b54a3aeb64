/**
 * Account layouts of the December 2025 program that Gridlab's codecs do not cover
 * (Miner, Treasury, the entropy Var), and the conversions of the fixture's accounts,
 * dumped in the layouts of before 2025-12-04, to the layouts the binary reads.
 * Sources: regolith-labs/ore at 12274aa `api/src/state/{board,round,miner,treasury}.rs`;
 * regolith-labs/entropy `api/src/state/var.rs`. Every account is an 8-byte header (byte
 * 0 the discriminator) followed by a packed little-endian `#[repr(C)]` struct.
 */
const SQUARES = 25;

/** Reads a u64 as bigint. */
export function u64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}

function setU64(data: Uint8Array, offset: number, value: bigint): void {
  new DataView(data.buffer, data.byteOffset, data.byteLength).setBigUint64(offset, value, true);
}

function u64s(data: Uint8Array, offset: number): bigint[] {
  return Array.from({ length: SQUARES }, (_, i) => u64(data, offset + 8 * i));
}

/** Board: 32 bytes before `epoch_id` (c004cf1, 2025-12-04), 40 after. */
export const BOARD_LEN = 40;
/** Round: 560 bytes before `total_miners` @544 (f2c552c, 2025-12-04), 568 after. */
export const ROUND_LEN = 568;
/** Treasury: 80 bytes before the placeholders of bd3ab50 (2025-12-04), 96 after. */
export const TREASURY_LEN = 96;
/** Miner with `lifetime_deployed` (38b0110, 2025-12-04). */
export const MINER_LEN = 544;

export interface BoardFields {
  readonly roundId: bigint;
  readonly startSlot: bigint;
  readonly endSlot: bigint;
}

export function encodeBoard(board: BoardFields): Uint8Array {
  const data = new Uint8Array(BOARD_LEN);
  data[0] = 105;
  setU64(data, 8, board.roundId);
  setU64(data, 16, board.startSlot);
  setU64(data, 24, board.endSlot);
  return data;
}

export function decodeBoardFields(data: Uint8Array): BoardFields {
  return { roundId: u64(data, 8), startSlot: u64(data, 16), endSlot: u64(data, 24) };
}

/**
 * A round as reset opens it (`reset.rs`: deployed and counts zero, `expires_at` u64::MAX
 * until the first deploy), in the 568-byte layout.
 */
export function openRound(id: bigint, rentPayer: Uint8Array): Uint8Array {
  const data = new Uint8Array(ROUND_LEN);
  data[0] = 109;
  setU64(data, 8, id);
  setU64(data, 448, 0xffff_ffff_ffff_ffffn);
  data.set(rentPayer.subarray(0, 32), 464);
  return data;
}

/** The 80-byte treasury of the fixture in the 96-byte layout (placeholders zero, `total_refined` moved). */
export function upgradeTreasury(old: Uint8Array): Uint8Array {
  if (old.length !== 80) throw new RangeError(`treasury fixture has ${old.length} bytes, expected 80`);
  const data = new Uint8Array(TREASURY_LEN);
  data.set(old.subarray(0, 16), 0); // header, balance
  setU64(data, 24, u64(old, 16)); // motherlode
  data.set(old.subarray(24, 56), 32); // miner_rewards_factor, stake_rewards_factor
  setU64(data, 72, u64(old, 72)); // total_refined
  setU64(data, 80, u64(old, 56)); // total_staked
  setU64(data, 88, u64(old, 64)); // total_unclaimed
  return data;
}

/** A 96-byte Treasury holding `motherlode` ORE in its pool, every other field zero. */
export function encodeTreasury(motherlode: bigint): Uint8Array {
  const data = new Uint8Array(TREASURY_LEN);
  data[0] = 104;
  setU64(data, 24, motherlode);
  return data;
}

export interface TreasuryFields {
  readonly balance: bigint;
  readonly motherlode: bigint;
  readonly totalUnclaimed: bigint;
}

export function decodeTreasuryFields(data: Uint8Array): TreasuryFields {
  return { balance: u64(data, 8), motherlode: u64(data, 24), totalUnclaimed: u64(data, 88) };
}

/** The Miner fields the tests read (`api/src/state/miner.rs`). */
export interface MinerFields {
  readonly authority: Uint8Array;
  readonly deployed: readonly bigint[];
  readonly cumulative: readonly bigint[];
  readonly checkpointFee: bigint;
  readonly checkpointId: bigint;
  readonly rewardsSol: bigint;
  readonly rewardsOre: bigint;
  readonly roundId: bigint;
  readonly lifetimeRewardsSol: bigint;
  readonly lifetimeDeployed: bigint;
}

export function decodeMiner(data: Uint8Array): MinerFields {
  if (data.length !== MINER_LEN || data[0] !== 103) throw new RangeError(`not a ${MINER_LEN}-byte Miner account`);
  return {
    authority: data.slice(8, 40),
    deployed: u64s(data, 40),
    cumulative: u64s(data, 240),
    checkpointFee: u64(data, 440),
    checkpointId: u64(data, 448),
    // 456 last_claim_ore_at, 464 last_claim_sol_at, 472 rewards_factor (16 bytes)
    rewardsSol: u64(data, 488),
    rewardsOre: u64(data, 496),
    // 504 refined_ore
    roundId: u64(data, 512),
    lifetimeRewardsSol: u64(data, 520),
    // 528 lifetime_rewards_ore
    lifetimeDeployed: u64(data, 536),
  };
}

/** Offsets in the entropy `Var` (240 bytes). */
export const VAR = { authority: 8, commit: 80, seed: 112, slotHash: 144, value: 176, samples: 208, startAt: 224, endAt: 232 } as const;

export interface VarFields {
  readonly authority: Uint8Array;
  readonly commit: Uint8Array;
  readonly seed: Uint8Array;
  readonly slotHash: Uint8Array;
  readonly value: Uint8Array;
  readonly samples: bigint;
  readonly endAt: bigint;
}

export function decodeVar(data: Uint8Array): VarFields {
  const bytes = (o: number) => data.slice(o, o + 32);
  return {
    authority: bytes(VAR.authority),
    commit: bytes(VAR.commit),
    seed: bytes(VAR.seed),
    slotHash: bytes(VAR.slotHash),
    value: bytes(VAR.value),
    samples: u64(data, VAR.samples),
    endAt: u64(data, VAR.endAt),
  };
}

/** What the Var holds before the first round (see finalizedVar). */
export interface VarSetup {
  readonly seed: Uint8Array;
  readonly slotHash: Uint8Array;
  readonly value: Uint8Array;
  readonly endAt: bigint;
  /** Samples left (default: the fixture's); each round's `next` spends one. */
  readonly samples?: bigint;
}

/**
 * The Var as the previous round's reveal left it (seed, slot hash and value set, so
 * entropy `next` accepts it), with `seed` the commitment of the next value's seed.
 */
export function finalizedVar(fixture: Uint8Array, fields: VarSetup): Uint8Array {
  const data = fixture.slice();
  data.set(fields.seed, VAR.seed);
  data.set(fields.slotHash, VAR.slotHash);
  data.set(fields.value, VAR.value);
  setU64(data, VAR.endAt, fields.endAt);
  if (fields.samples !== undefined) setU64(data, VAR.samples, fields.samples);
  return data;
}
