/**
 * The instructions the tests send, built as the program's own SDK builds them:
 * regolith-labs/ore `api/src/sdk.rs` and `api/src/instruction.rs` at 12274aa
 * (2025-12-09, the source of `fixtures/mainnet/program-2025-12/ore.so`), and
 * regolith-labs/entropy `api/src/sdk.rs` / `api/src/instruction.rs` for the Var.
 * Data is the one-byte discriminator followed by the `#[repr(C)]` argument struct.
 */
import { PublicKey, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import {
  BOARD,
  CONFIG,
  ENTROPY_PROGRAM_ID,
  MINT_AUTHORITY,
  ORE_MINT,
  ORE_MINT_PROGRAM_ID,
  ORE_PROGRAM_ID,
  SLOT_HASHES_SYSVAR,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  TREASURY,
  TREASURY_TOKENS,
  ATA_PROGRAM_ID,
  associatedTokenAddress,
  automationAddress,
  minerAddress,
  roundAddress,
} from './addresses';

/**
 * The program's executable: `2025-12` (source 12274aa) or `2026-04` (source 7d18eda,
 * which reads the same 568-byte rounds but takes more accounts in some instructions).
 */
export type Era = '2025-12' | '2026-04';

/** `OreInstruction` discriminators (`api/src/instruction.rs`). */
const ORE = { automate: 0, checkpoint: 2, claimSol: 3, claimOre: 4, close: 5, deploy: 6, reset: 9 } as const;
/** `EntropyInstruction` discriminators. */
const ENTROPY = { reveal: 4, sample: 5 } as const;

const w = (pubkey: PublicKey): AccountMeta => ({ pubkey, isSigner: false, isWritable: true });
const r = (pubkey: PublicKey): AccountMeta => ({ pubkey, isSigner: false, isWritable: false });
const s = (pubkey: PublicKey): AccountMeta => ({ pubkey, isSigner: true, isWritable: true });

function ore(keys: AccountMeta[], data: Uint8Array): TransactionInstruction {
  return new TransactionInstruction({ programId: ORE_PROGRAM_ID, keys, data: Buffer.from(data) });
}

/** Bit i of the mask = square i. */
export function squareMask(squares: readonly number[]): number {
  let mask = 0;
  for (const sq of squares) mask |= 1 << sq;
  return mask >>> 0;
}

/**
 * `sdk::deploy` for a manual deploy (signer = authority): `[6] ++ amount u64 ++ squares u32`,
 * 11 accounts, the last two the entropy Var and program (mandatory since 9abe8ed).
 */
export function deploy(signer: PublicKey, roundId: bigint, amount: bigint, squares: readonly number[], varAddress: PublicKey): TransactionInstruction {
  return deployFor(signer, signer, roundId, amount, squareMask(squares), varAddress);
}

/**
 * `sdk::deploy(signer, authority, ...)`: a deploy for `authority`, signed by `signer` (an
 * automation's executor); `mask` is the instruction's argument as sent.
 */
export function deployFor(signer: PublicKey, authority: PublicKey, roundId: bigint, amount: bigint, mask: number, varAddress: PublicKey): TransactionInstruction {
  const data = Buffer.alloc(13);
  data[0] = ORE.deploy;
  data.writeBigUInt64LE(amount, 1);
  data.writeUInt32LE(mask >>> 0, 9);
  return ore(
    [
      s(signer),
      w(authority),
      w(automationAddress(authority)),
      w(BOARD),
      w(CONFIG),
      w(minerAddress(authority)),
      w(roundAddress(roundId)),
      r(SYSTEM_PROGRAM_ID),
      r(ORE_PROGRAM_ID),
      w(varAddress),
      r(ENTROPY_PROGRAM_ID),
    ],
    data,
  );
}

/** `sdk::reset`: 14 ORE accounts, then the entropy Var and program, then ore-mint's authority and program. */
export function reset(signer: PublicKey, feeCollector: PublicKey, roundId: bigint, topMinerAuthority: PublicKey, varAddress: PublicKey): TransactionInstruction {
  return ore(
    [
      s(signer),
      w(BOARD),
      w(CONFIG),
      w(feeCollector),
      w(ORE_MINT),
      w(roundAddress(roundId)),
      w(roundAddress(roundId + 1n)),
      w(minerAddress(topMinerAuthority)),
      w(TREASURY),
      w(TREASURY_TOKENS),
      r(SYSTEM_PROGRAM_ID),
      r(TOKEN_PROGRAM_ID),
      r(ORE_PROGRAM_ID),
      r(SLOT_HASHES_SYSVAR),
      w(varAddress),
      r(ENTROPY_PROGRAM_ID),
      w(MINT_AUTHORITY),
      r(ORE_MINT_PROGRAM_ID),
    ],
    Uint8Array.of(ORE.reset),
  );
}

/** `sdk::close`: closes an expired round, its rent to the `rent_payer` the round names, what is left to the treasury. */
export function close(signer: PublicKey, roundId: bigint, rentPayer: PublicKey): TransactionInstruction {
  return ore([s(signer), w(BOARD), w(rentPayer), w(roundAddress(roundId)), w(TREASURY), r(SYSTEM_PROGRAM_ID)], Uint8Array.of(ORE.close));
}

/** `sdk::checkpoint`: settles `authority`'s deploys of `roundId` into its Miner account. */
export function checkpoint(signer: PublicKey, authority: PublicKey, roundId: bigint): TransactionInstruction {
  return ore([s(signer), w(BOARD), w(minerAddress(authority)), w(roundAddress(roundId)), w(TREASURY), r(SYSTEM_PROGRAM_ID)], Uint8Array.of(ORE.checkpoint));
}

/**
 * `sdk::claim_sol`: moves the Miner's `rewards_sol` to its authority. Since 2026-01 (ore
 * 7d18eda's layout) it also takes the board and the program, to log a ClaimEvent.
 */
export function claimSol(signer: PublicKey, era: Era): TransactionInstruction {
  const keys = era === '2025-12' ? [s(signer), w(minerAddress(signer)), r(SYSTEM_PROGRAM_ID)] : [s(signer), w(BOARD), w(minerAddress(signer)), r(SYSTEM_PROGRAM_ID), r(ORE_PROGRAM_ID)];
  return ore(keys, Uint8Array.of(ORE.claimSol));
}

/** `Automate` arguments (`api/src/instruction.rs`): `executor` all zero closes the automation. */
export interface AutomateArgs {
  readonly amount: bigint;
  readonly deposit: bigint;
  readonly executor: PublicKey;
  readonly fee: bigint;
  readonly mask: bigint;
  readonly strategy: number;
  readonly reload: boolean;
}

/** `sdk::automate`: `[0] ++ amount ++ deposit ++ fee ++ mask (u64 LE) ++ strategy u8 ++ reload u64 LE`; 5 accounts. */
export function automate(signer: PublicKey, args: AutomateArgs): TransactionInstruction {
  const data = Buffer.alloc(42);
  data[0] = ORE.automate;
  data.writeBigUInt64LE(args.amount, 1);
  data.writeBigUInt64LE(args.deposit, 9);
  data.writeBigUInt64LE(args.fee, 17);
  data.writeBigUInt64LE(args.mask, 25);
  data[33] = args.strategy;
  data.writeBigUInt64LE(args.reload ? 1n : 0n, 34);
  return ore([s(signer), w(automationAddress(signer)), w(args.executor), w(minerAddress(signer)), r(SYSTEM_PROGRAM_ID)], data);
}

/**
 * `sdk::claim_ore`: the Miner's refined and unrefined ORE from the treasury's token
 * account to the signer's (created if missing). Since 2026-01 (7d18eda) it also takes the
 * board and the program, to log a ClaimEvent.
 */
export function claimOre(signer: PublicKey, era: Era): TransactionInstruction {
  const recipient = associatedTokenAddress(signer, ORE_MINT);
  const tail = [w(ORE_MINT), w(recipient), w(TREASURY), w(TREASURY_TOKENS), r(SYSTEM_PROGRAM_ID), r(TOKEN_PROGRAM_ID), r(ATA_PROGRAM_ID)];
  const keys = era === '2025-12' ? [s(signer), w(minerAddress(signer)), ...tail] : [s(signer), w(BOARD), w(minerAddress(signer)), ...tail, r(ORE_PROGRAM_ID)];
  return ore(keys, Uint8Array.of(ORE.claimOre));
}

/** entropy `sdk::sample`: records the slot hash of the Var's `end_at`. */
export function sampleVar(signer: PublicKey, varAddress: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: ENTROPY_PROGRAM_ID,
    keys: [s(signer), w(varAddress), r(SLOT_HASHES_SYSVAR)],
    data: Buffer.of(ENTROPY.sample),
  });
}

/** entropy `sdk::reveal`: reveals the seed committed to, which finalizes the Var's value. */
export function revealVar(signer: PublicKey, varAddress: PublicKey, seed: Uint8Array): TransactionInstruction {
  return new TransactionInstruction({
    programId: ENTROPY_PROGRAM_ID,
    keys: [s(signer), w(varAddress)],
    data: Buffer.concat([Buffer.of(ENTROPY.reveal), Buffer.from(seed)]),
  });
}
