import { readFileSync } from 'node:fs';
import { signAsync } from '@noble/ed25519';
import { InputError } from '@gridlab/errors';
import { subscribeMessage, type IssuedKeyReply, type ReissueStart, type SubscribeCompleteRequest, type SubscriptionStart } from '@gridlab/contracts';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  getMint,
} from '@solana/spl-token';
import { Connection, Keypair, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
/** PUT /subscribe answers 409 payment_not_confirmed until the cluster shows the transfer. */
const CONFIRM_ATTEMPTS = 15;
const CONFIRM_TIMEOUT_MS = 90_000;

/** A Solana CLI keypair file: a JSON array of the 64 secret-key bytes. */
export function readKeypair(path: string): Keypair {
  let bytes: unknown;
  try {
    bytes = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputError(`--keypair ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new InputError(`--keypair ${path} is not a Solana keypair file (a JSON array of 64 bytes)`);
  }
  return Keypair.fromSecretKey(Uint8Array.from(bytes as number[]));
}

interface Problem {
  status: number;
  code?: string;
  detail?: string;
}

class ApiError extends Error {
  constructor(
    readonly problem: Problem,
    readonly retryAfter: number | null,
  ) {
    super(`${problem.status} ${problem.code ?? ''}: ${problem.detail ?? ''}`.trim());
  }
}

/** One JSON call to the Gridlab API; a problem+json answer becomes an ApiError. */
async function call<T>(api: string, method: 'POST' | 'PUT', path: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${api.replace(/\/$/, '')}/api/v1${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new Error(`cannot reach the Gridlab API at ${api}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await res.text();
  if (!res.ok) {
    let problem: Problem = { status: res.status, detail: text.slice(0, 200) };
    try {
      problem = JSON.parse(text) as Problem;
    } catch {
      // not problem+json: keep the raw text
    }
    const retryAfter = Number(res.headers.get('retry-after'));
    throw new ApiError(problem, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  }
  return JSON.parse(text) as T;
}

/** Builds, signs and sends the TransferChecked + Memo payment; resolves with its signature once confirmed. */
async function pay(connection: Connection, wallet: Keypair, start: SubscriptionStart): Promise<string> {
  const mint = new PublicKey(start.instructions.mint);
  const treasury = new PublicKey(start.instructions.to);
  const { decimals } = await getMint(connection, mint, 'confirmed');
  const source = getAssociatedTokenAddressSync(mint, wallet.publicKey);
  const destination = getAssociatedTokenAddressSync(mint, treasury, true);
  const tx = new Transaction().add(
    createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, destination, treasury, mint),
    createTransferCheckedInstruction(source, mint, destination, wallet.publicKey, BigInt(start.instructions.amountBaseUnits), decimals),
    new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(start.instructions.memo, 'utf8') }),
  );
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
  tx.recentBlockhash = blockhash;
  tx.feePayer = wallet.publicKey;
  tx.sign(wallet);
  const signature = await connection.sendRawTransaction(tx.serialize());
  await confirmByPolling(connection, signature, lastValidBlockHeight);
  return signature;
}

/**
 * Waits for `confirmed` by polling signature statuses: plain HTTP, so it works with
 * RPC endpoints that offer no WebSocket. Fails on an on-chain error or an expired blockhash.
 */
async function confirmByPolling(connection: Connection, signature: string, lastValidBlockHeight: number): Promise<void> {
  const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const status = (await connection.getSignatureStatuses([signature])).value[0];
    if (status?.err) throw new Error(`the payment failed on chain: ${JSON.stringify(status.err)} (${signature})`);
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return;
    if ((await connection.getBlockHeight('confirmed')) > lastValidBlockHeight) {
      throw new Error(`the payment expired before it was confirmed (${signature}); nothing was paid, run the command again`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the payment was not confirmed within ${CONFIRM_TIMEOUT_MS / 1000} s (${signature}); check it, then redeem with PUT /subscribe`);
}

/**
 * Redeems with retries. The body is signed (signatureBase64 over subscribeMessage), so a
 * front-runner's redemption is taken back and a 503/504 after the commit (the reply
 * lost) is retried without paying again.
 */
async function completeWithRetry(api: string, body: SubscribeCompleteRequest): Promise<IssuedKeyReply> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call<IssuedKeyReply>(api, 'PUT', '/subscribe', body);
    } catch (error) {
      const retryable =
        error instanceof ApiError && (error.problem.code === 'payment_not_confirmed' || error.problem.status === 503 || error.problem.status === 504);
      if (!retryable || attempt >= CONFIRM_ATTEMPTS) throw error;
      await new Promise((r) => setTimeout(r, (error.retryAfter ?? 2) * 1000));
    }
  }
}

export interface SubscribeOptions {
  readonly keypair: string;
  readonly plan: string;
  readonly referral?: string;
  readonly api: string;
  readonly rpc: string;
}

/** The customer's subscribe flow: nonce, signed payment, confirmation, redemption. */
export async function subscribeFlow(opts: SubscribeOptions): Promise<IssuedKeyReply> {
  if (opts.plan !== 'monthly' && opts.plan !== 'annual') throw new InputError('--plan must be monthly or annual');
  const wallet = readKeypair(opts.keypair);
  const ownerPubkey = wallet.publicKey.toBase58();
  const start = await call<SubscriptionStart>(opts.api, 'POST', '/subscribe', {
    ownerPubkey,
    plan: opts.plan,
    ...(opts.referral === undefined ? {} : { referralCode: opts.referral }),
  });
  process.stderr.write(`paying ${start.priceToken} tokens to ${start.instructions.to} (memo ${start.nonce})\n`);
  const txSig = await pay(new Connection(opts.rpc, 'confirmed'), wallet, start);
  const signature = await signAsync(new TextEncoder().encode(subscribeMessage(ownerPubkey, start.nonce)), wallet.secretKey.slice(0, 32));
  return completeWithRetry(opts.api, { nonce: start.nonce, txSig, ownerPubkey, signatureBase64: Buffer.from(signature).toString('base64') });
}

/** Key rotation: the wallet signs the reissue message. */
export async function reissueFlow(opts: { readonly keypair: string; readonly api: string }): Promise<IssuedKeyReply> {
  const wallet = readKeypair(opts.keypair);
  const ownerPubkey = wallet.publicKey.toBase58();
  const start = await call<ReissueStart>(opts.api, 'POST', '/reissue', { ownerPubkey });
  const signature = await signAsync(new TextEncoder().encode(start.message), wallet.secretKey.slice(0, 32));
  return call<IssuedKeyReply>(opts.api, 'PUT', '/reissue', {
    nonce: start.nonce,
    ownerPubkey,
    signatureBase64: Buffer.from(signature).toString('base64'),
  });
}
