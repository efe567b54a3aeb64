import {
  ACCOUNT_SIZE,
  AccountLayout,
  MINT_SIZE,
  MintLayout,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Keypair, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import type { LiteSVM } from 'litesvm';
import type { AccountStore } from './chain/account-store';

export const PAYMENT_DECIMALS = 11;
const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** Raw SPL mint account bytes: `decimals`, minted by `authority`, no freeze authority. */
function mintAccountData(authority: PublicKey, decimals: number): Uint8Array {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority: authority,
      supply: 0n,
      decimals,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    data,
  );
  return data;
}

/** Raw SPL token account bytes: an initialized, empty account of `owner` for `mint`. */
function tokenAccountData(mint: PublicKey, owner: PublicKey): Uint8Array {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint,
      owner,
      amount: 0n,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 1,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  return data;
}

/**
 * Creates the payment mint at its configured address (written directly: nobody can sign
 * for that address here) and the treasury's associated token account.
 */
export function installPaymentToken(svm: LiteSVM, store: AccountStore, mint: PublicKey, authority: PublicKey, treasury: PublicKey): PublicKey {
  store.putSvm(mint.toBase58(), {
    lamports: Number(svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
    data: mintAccountData(authority, PAYMENT_DECIMALS),
    owner: TOKEN_PROGRAM_ID.toBase58(),
    executable: false,
  });
  const treasuryAta = getAssociatedTokenAddressSync(mint, treasury, true);
  store.putSvm(treasuryAta.toBase58(), {
    lamports: Number(svm.minimumBalanceForRentExemption(BigInt(ACCOUNT_SIZE))),
    data: tokenAccountData(mint, treasury),
    owner: TOKEN_PROGRAM_ID.toBase58(),
    executable: false,
  });
  return treasuryAta;
}

/** The treasury's (or any owner's) associated token account of the payment mint. */
export function paymentTokenAccount(mint: PublicKey, owner: PublicKey): PublicKey {
  return getAssociatedTokenAddressSync(mint, owner, true);
}

/**
 * The signed wire transaction of a dev mint: create the owner's associated token account
 * if needed and mint `amount` to it. A memo with a sequence number keeps repeated mints of
 * the same amount distinct transactions.
 */
export function mintTransaction(
  authority: Keypair,
  mint: PublicKey,
  owner: PublicKey,
  amount: bigint,
  blockhash: string,
  sequence: number,
): Uint8Array {
  const ata = getAssociatedTokenAddressSync(mint, owner, true);
  const tx = new Transaction({ feePayer: authority.publicKey, recentBlockhash: blockhash }).add(
    createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, ata, owner, mint),
    createMintToInstruction(mint, ata, authority.publicKey, amount),
    new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(`devnet mint ${sequence}`) }),
  );
  tx.sign(authority);
  return tx.serialize();
}
