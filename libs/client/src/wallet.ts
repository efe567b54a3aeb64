/**
 * `@gridlab/client/wallet`: the wallet side of the key flows, for a Keypair or any wallet
 * that signs transactions and messages (browser wallet adapters fit as they are).
 * Needs the peer dependencies @solana/web3.js and @solana/spl-token.
 */
import { signAsync } from '@noble/ed25519';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  getMint,
} from '@solana/spl-token';
import { Connection, Keypair, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import type { GridlabClient } from './client.ts';
import { GridlabApiError } from './errors.ts';
import { sleep } from './transport.ts';
import { reissueMessage } from './reissue-message.ts';
import { subscribeMessage } from './subscribe-message.ts';
import type { IssuedKey, SubscriptionStart } from './types.ts';

export { subscribeMessage, type SubscribeMessageFields } from './subscribe-message.ts';
export { reissueMessage, type ReissueMessageFields } from './reissue-message.ts';

/** A wallet: its public key, and signing of transactions and of arbitrary messages (ed25519). */
export interface WalletSigner {
  readonly publicKey: PublicKey;
  signTransaction(transaction: Transaction): Promise<Transaction>;
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

export type Signer = Keypair | WalletSigner;

/** web3.js types instruction data as a Node Buffer; a Uint8Array serializes the same (and exists in browsers). */
type InstructionData = NonNullable<ConstructorParameters<typeof TransactionInstruction>[0]['data']>;

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const DEFAULT_CONFIRM_TIMEOUT_MS = 90_000;
const DEFAULT_REDEEM_ATTEMPTS = 15;
/** How long a signed redemption message stays valid (the service accepts at most an hour). */
const SIGNATURE_TTL_MS = 10 * 60_000;

/** A Keypair as a WalletSigner; any other signer as it is. */
export function asWalletSigner(signer: Signer): WalletSigner {
  if (!(signer instanceof Keypair)) return signer;
  return {
    publicKey: signer.publicKey,
    signTransaction: (tx) => {
      tx.partialSign(signer);
      return Promise.resolve(tx);
    },
    signMessage: (message) => signAsync(message, signer.secretKey.slice(0, 32)),
  };
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export interface SubscribeOptions {
  readonly signer: Signer;
  /** A web3.js Connection or an RPC URL of the cluster the gateway's billing watches. */
  readonly connection: Connection | string;
  readonly plan?: 'monthly' | 'annual';
  /** An active subscriber id of another wallet: 10% off a monthly plan. */
  readonly referralCode?: string;
  readonly signal?: AbortSignal;
  /** How long to wait for the payment to be confirmed (default 90 s). */
  readonly confirmTimeoutMs?: number;
  /** The domain the signed redemption names: the API's public origin (default: the origin of the client's baseUrl). */
  readonly domain?: string;
  /** Called once the payment is sent, with the nonce and transaction signature (keep them: they redeem the key). */
  readonly onPayment?: (payment: { readonly start: SubscriptionStart; readonly txSig: string }) => void;
}

/**
 * Buys (or renews) a subscription: POST /subscribe for a nonce that only a signed PUT
 * redeems (`requireSignature`), the token transfer with the nonce as memo (signed by the
 * signer), confirmation, then PUT /subscribe with the owner's signed message. Sets
 * `client.apiKey` to the issued key.
 */
export async function subscribe(client: GridlabClient, options: SubscribeOptions): Promise<IssuedKey> {
  const wallet = asWalletSigner(options.signer);
  const ownerPubkey = wallet.publicKey.toBase58();
  const signal = options.signal;
  const start = await client.startSubscription(
    {
      ownerPubkey,
      requireSignature: true,
      ...(options.plan === undefined ? {} : { plan: options.plan }),
      ...(options.referralCode === undefined ? {} : { referralCode: options.referralCode }),
    },
    signal === undefined ? {} : { signal },
  );
  const connection = typeof options.connection === 'string' ? new Connection(options.connection, 'confirmed') : options.connection;
  const txSig = await pay(connection, wallet, start, options.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS, signal);
  options.onPayment?.({ start, txSig });
  const issued = await redeem(client, {
    wallet,
    nonce: start.nonce,
    txSig,
    ...(options.domain === undefined ? {} : { domain: options.domain }),
    ...(signal === undefined ? {} : { signal }),
  });
  client.apiKey = issued.apiKey;
  return issued;
}

/**
 * PUT /subscribe for a confirmed payment, signed by the owner (the message names
 * `domain`, by default the origin of the client's baseUrl); retried while the gateway
 * answers payment_not_confirmed, 503 or 504. Use it alone to redeem a payment made earlier.
 */
export async function redeem(
  client: GridlabClient,
  args: {
    readonly wallet: Signer;
    readonly nonce: string;
    readonly txSig: string;
    readonly domain?: string;
    readonly signal?: AbortSignal;
    readonly attempts?: number;
  },
): Promise<IssuedKey> {
  const wallet = asWalletSigner(args.wallet);
  const ownerPubkey = wallet.publicKey.toBase58();
  const domain = args.domain ?? new URL(client.baseUrl).origin;
  const body = { nonce: args.nonce, txSig: args.txSig, ownerPubkey };
  const opts = args.signal === undefined ? {} : { signal: args.signal };
  let signedUntil = 0;
  let signed: { message: string; signatureBase64: string } | null = null;
  for (let attempt = 1; ; attempt++) {
    // A fresh signature once the last one is within a minute of its expiry (long retries).
    if (signed === null || Date.now() > signedUntil - 60_000) {
      signedUntil = Date.now() + SIGNATURE_TTL_MS;
      const message = subscribeMessage({ domain, ownerPubkey, nonce: args.nonce, txSig: args.txSig, expiresAt: new Date(signedUntil).toISOString() });
      signed = { message, signatureBase64: base64(await wallet.signMessage(new TextEncoder().encode(message))) };
    }
    try {
      return await client.completeSubscription({ ...body, ...signed }, opts);
    } catch (error) {
      // A signed PUT is safe to repeat: after a 503/504 billing may have committed, and a
      // newly signed request takes the paid key back without paying again (a signature that
      // already redeemed the payment is refused: whoever saw that body could replay it).
      const retryable = error instanceof GridlabApiError && (error.code === 'payment_not_confirmed' || error.status === 503 || error.status === 504);
      if (!retryable || attempt >= (args.attempts ?? DEFAULT_REDEEM_ATTEMPTS)) throw error;
      if (error.status === 503 || error.status === 504) signed = null;
      await sleep(error.retryAfterMs ?? 2000, args.signal);
    }
  }
}

/**
 * Rotates the API key: the wallet signs the reissue message, built here for `domain` (by
 * default the origin of the client's baseUrl) and signed only if the service asked for
 * exactly that text (else a GridlabSigningError, nothing signed). Sets `client.apiKey`
 * to the new key.
 */
export async function reissue(client: GridlabClient, options: { readonly signer: Signer; readonly domain?: string; readonly signal?: AbortSignal }): Promise<IssuedKey> {
  const wallet = asWalletSigner(options.signer);
  const ownerPubkey = wallet.publicKey.toBase58();
  const opts = options.signal === undefined ? {} : { signal: options.signal };
  const domain = options.domain ?? new URL(client.baseUrl).origin;
  const start = await client.startReissue({ ownerPubkey }, opts);
  const expected = reissueMessage({ domain, ownerPubkey, nonce: start.nonce, expiresAt: start.expiresAt });
  if (start.message !== expected) throw new GridlabSigningError(domain, start.message);
  const signature = await wallet.signMessage(new TextEncoder().encode(expected));
  const issued = await client.completeReissue({ nonce: start.nonce, ownerPubkey, signatureBase64: base64(signature) }, opts);
  client.apiKey = issued.apiKey;
  return issued;
}

/** The service asked the wallet to sign a reissue message other than the one for this site: nothing was signed. */
export class GridlabSigningError extends Error {
  constructor(
    /** The site the client talks to (the message must name it). */
    readonly domain: string,
    /** What the service asked to be signed. */
    readonly asked: string,
  ) {
    super(`refusing to sign: the service asked for a reissue message that is not the one for ${domain} (a look-alike site relaying another service's message, or a domain option that does not match the service's PUBLIC_ORIGIN)`);
    this.name = 'GridlabSigningError';
  }
}

/** Builds, signs and sends the TransferChecked + Memo payment; resolves with its signature once confirmed. */
async function pay(connection: Connection, wallet: WalletSigner, start: SubscriptionStart, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const mint = new PublicKey(start.instructions.mint);
  const treasury = new PublicKey(start.instructions.to);
  const { decimals } = await getMint(connection, mint, 'confirmed');
  const source = getAssociatedTokenAddressSync(mint, wallet.publicKey);
  const destination = getAssociatedTokenAddressSync(mint, treasury, true);
  const tx = new Transaction().add(
    createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, destination, treasury, mint),
    createTransferCheckedInstruction(source, mint, destination, wallet.publicKey, BigInt(start.instructions.amountBaseUnits), decimals),
    new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: new TextEncoder().encode(start.instructions.memo) as InstructionData }),
  );
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
  tx.recentBlockhash = blockhash;
  tx.feePayer = wallet.publicKey;
  signal?.throwIfAborted();
  const signed = await wallet.signTransaction(tx);
  const signature = await connection.sendRawTransaction(signed.serialize());
  await confirmByPolling(connection, signature, lastValidBlockHeight, timeoutMs, signal);
  return signature;
}

/**
 * Waits for `confirmed` by polling signature statuses: plain HTTP, so it works with RPC
 * endpoints that offer no WebSocket. Fails on an on-chain error or an expired blockhash.
 */
async function confirmByPolling(connection: Connection, signature: string, lastValidBlockHeight: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = (await connection.getSignatureStatuses([signature])).value[0];
    if (status?.err) throw new Error(`the payment failed on chain: ${JSON.stringify(status.err)} (${signature})`);
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return;
    if ((await connection.getBlockHeight('confirmed')) > lastValidBlockHeight) {
      throw new Error(`the payment expired before it was confirmed (${signature}); nothing was paid, try again`);
    }
    await sleep(500, signal);
  }
  throw new Error(`the payment was not confirmed within ${timeoutMs / 1000} s (${signature}); check it, then redeem it with redeem()`);
}
