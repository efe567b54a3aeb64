/**
 * The ORE program's mainnet executables installed into a LiteSVM with what they call and
 * read besides the game's own accounts: the entropy program and its Var, a stand-in for
 * ore-mint (mint-stub.ts) and its Authority, the Config. From `fixtures/mainnet/`: both
 * ORE executables are of the v3 era (568-byte rounds, parimutuel); the Config, the Var and
 * the entropy program are those of December 2025, which both executables run with.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { address } from '@solana/kit';
import { PublicKey } from '@solana/web3.js';
import type { LiteSVM } from 'litesvm';
import { CONFIG, ENTROPY_PROGRAM_ID, MINT_AUTHORITY, ORE_MINT_PROGRAM_ID, ORE_PROGRAM_ID } from './addresses';
import type { Era } from './instructions';
import { finalizedVar, type VarSetup } from './layouts';
import { noopProgram } from './mint-stub';

/** Where the fixtures are, from this file. */
export const FIXTURES = join(__dirname, '../../../../fixtures/mainnet');

/** A fixture file's bytes (`program-2025-12/` unless `dir` says otherwise). */
export function fixture(name: string, dir = 'program-2025-12'): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, dir, name)));
}

/** Writes an account, rent-exempt (the caller's way: a test's LiteSVM, the devnet's account store). */
export type PutAccount = (key: PublicKey, data: Uint8Array, owner: PublicKey) => void;

/** Addresses the installed programs were set up with. */
export interface InstalledOre {
  /** Where reset sends the admin fee (Config's `fee_collector`; a constant of the 2026-04 program, same value). */
  readonly feeCollector: PublicKey;
  /** The entropy Var the board draws from (Config's `var_address`; a constant since, same value). */
  readonly varAddress: PublicKey;
}

/**
 * Loads ORE (`program-<era>/ore.so`), entropy and the ore-mint stand-in at their mainnet
 * ids, and writes the Config, ore-mint's Authority and the Var (authority: the board) as
 * the previous round's reveal left it.
 */
export function installOre(svm: LiteSVM, era: Era, put: PutAccount, varSetup: VarSetup): InstalledOre {
  const config = fixture('config.account.bin');
  // Config (2025-12): admin, bury_authority, fee_collector @72, swap_program, var_address @136, admin_fee.
  const feeCollector = new PublicKey(config.subarray(72, 104));
  const varAddress = new PublicKey(config.subarray(136, 168));
  svm.addProgram(address(ORE_PROGRAM_ID.toBase58()), fixture('ore.so', `program-${era}`));
  const entropy = fixture('entropy.so');
  svm.addProgram(address(ENTROPY_PROGRAM_ID.toBase58()), entropy);
  svm.addProgram(address(ORE_MINT_PROGRAM_ID.toBase58()), noopProgram(entropy));
  put(CONFIG, config, ORE_PROGRAM_ID);
  // ore-mint's Authority: discriminator 100, last_mint_at 0.
  put(MINT_AUTHORITY, Uint8Array.of(100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), ORE_MINT_PROGRAM_ID);
  put(varAddress, finalizedVar(fixture('entropy_var.account.bin'), varSetup), ENTROPY_PROGRAM_ID);
  return { feeCollector, varAddress };
}
