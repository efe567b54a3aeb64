/**
 * Program ids and PDAs of the ORE program of December 2025 and the programs it calls
 * (regolith-labs/ore `api/src/state/mod.rs` and `api/src/consts.rs` at 12274aa;
 * regolith-labs/entropy `api/src/lib.rs`; regolith-labs/ore-mint `api/src/lib.rs`,
 * `api/src/state/mod.rs`).
 */
import { PublicKey } from '@solana/web3.js';

export const ORE_PROGRAM_ID = new PublicKey('oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv');
export const ENTROPY_PROGRAM_ID = new PublicKey('3jSkUuYBoJzQPMEzTvkDFXCZUBksPamrVhrnHR9igu2X');
/** The ore-mint program reset asks to mint ORE since 2025-12-05 (ore acd03d2). */
export const ORE_MINT_PROGRAM_ID = new PublicKey('mintzxW6Kckmeyh1h6Zfdj9QcYgCzhPSGiC8ChZ6fCx');
export const ORE_MINT = new PublicKey('oreoU2P8bN6jkk3jbaiVxYnG1dCXcYxwhwyK9jSybcp');
export const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const ATA_PROGRAM_ID = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
export const SYSTEM_PROGRAM_ID = new PublicKey('11111111111111111111111111111111');
export const SLOT_HASHES_SYSVAR = new PublicKey('SysvarS1otHashes111111111111111111111111111');

function pda(seeds: readonly Uint8Array[], program: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync(
    seeds.map((s) => Buffer.from(s)),
    program,
  )[0];
}

function u64Le(value: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(value);
  return b;
}

const text = (s: string) => Buffer.from(s, 'utf8');

export const BOARD = pda([text('board')], ORE_PROGRAM_ID);
export const CONFIG = pda([text('config')], ORE_PROGRAM_ID);
export const TREASURY = pda([text('treasury')], ORE_PROGRAM_ID);
export const TREASURY_TOKENS = pda([TREASURY.toBytes(), TOKEN_PROGRAM_ID.toBytes(), ORE_MINT.toBytes()], ATA_PROGRAM_ID);

/** The associated token account of `owner` for `mint`. */
export function associatedTokenAddress(owner: PublicKey, mint: PublicKey): PublicKey {
  return pda([owner.toBytes(), TOKEN_PROGRAM_ID.toBytes(), mint.toBytes()], ATA_PROGRAM_ID);
}
/** ore-mint's `Authority` PDA (`["authority"]`), the mint authority it signs with. */
export const MINT_AUTHORITY = pda([text('authority')], ORE_MINT_PROGRAM_ID);

export function roundAddress(id: bigint): PublicKey {
  return pda([text('round'), u64Le(id)], ORE_PROGRAM_ID);
}

export function minerAddress(authority: PublicKey): PublicKey {
  return pda([text('miner'), authority.toBytes()], ORE_PROGRAM_ID);
}

export function automationAddress(authority: PublicKey): PublicKey {
  return pda([text('automation'), authority.toBytes()], ORE_PROGRAM_ID);
}
