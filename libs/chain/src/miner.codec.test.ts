import { PublicKey } from '@solana/web3.js';
import { decodeMinerClaims, MINER_DISCRIMINATOR } from './miner.codec';
import { OrePdas } from './pda';
import { ORE_PROGRAM_ID } from './ore-layout';

/** A Miner account of `length` bytes with u64s written at the given offsets (from `api/src/state/miner.rs`). */
function account(length: number, u64s: Record<number, number>): Uint8Array {
  const data = new Uint8Array(length);
  data[0] = MINER_DISCRIMINATOR;
  const view = new DataView(data.buffer);
  for (const [offset, value] of Object.entries(u64s)) view.setBigUint64(Number(offset), BigInt(value), true);
  return data;
}

describe('decodeMinerClaims', () => {
  it('reads the 752-byte Miner of the current program (refined_ore before rewards_ore)', () => {
    // checkpoint_id @48, round_id @664, rewards_sol @688, refined_ore @696, rewards_ore @704, last_claim_ore_at @712.
    const data = account(752, { 48: 4411, 664: 4412, 688: 123_456_789, 696: 77, 704: 9_000_000_000, 712: 1_700_000_000 });
    expect(decodeMinerClaims(data)).toEqual({ rewardsSol: 123_456_789, rewardsOre: 9_000_000_000, refinedOre: 77, checkpointId: 4411 });
  });

  it('reads the 544-byte v3 Miner (and the 536-byte one before lifetime_deployed)', () => {
    // checkpoint_fee @440, checkpoint_id @448, rewards_sol @488, rewards_ore @496, refined_ore @504, round_id @512.
    const fields = { 440: 10_000, 448: 3001, 488: 5_000_000, 496: 42_000, 504: 7, 512: 3002 };
    const expected = { rewardsSol: 5_000_000, rewardsOre: 42_000, refinedOre: 7, checkpointId: 3001 };
    expect(decodeMinerClaims(account(544, fields))).toEqual(expected);
    expect(decodeMinerClaims(account(536, fields))).toEqual(expected);
  });

  it('refuses an unknown length and another account type', () => {
    expect(() => decodeMinerClaims(account(600, {}))).toThrow(/unknown length 600/);
    const treasury = account(752, {});
    treasury[0] = 104;
    expect(() => decodeMinerClaims(treasury)).toThrow(/expected discriminator 103/);
  });
});

describe('OrePdas.miner', () => {
  it('derives ["miner", authority] under the program id', () => {
    const authority = new PublicKey('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');
    const program = new PublicKey(ORE_PROGRAM_ID);
    const [expected] = PublicKey.findProgramAddressSync([Buffer.from('miner'), authority.toBuffer()], program);
    expect(new OrePdas(ORE_PROGRAM_ID).miner(authority.toBase58()).toBase58()).toBe(expected.toBase58());
  });
});
