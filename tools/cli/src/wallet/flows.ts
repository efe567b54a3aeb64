import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { GridlabClient, type IssuedKey } from '@gridlab/client';
import { reissue, subscribe } from '@gridlab/client/wallet';
import { InputError } from '@gridlab/errors';
import { Keypair } from '@solana/web3.js';

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

/**
 * A new wallet in a Solana CLI keypair file (readable by solana-keygen and every Solana
 * tool), owner-only permissions; refuses to overwrite unless `force`.
 */
export function keygen(path: string, force: boolean): { publicKey: string; file: string } {
  if (existsSync(path) && !force) throw new InputError(`${path} exists; pass --force to overwrite it (its wallet would be lost)`);
  const wallet = Keypair.generate();
  writeFileSync(path, `${JSON.stringify(Array.from(wallet.secretKey))}\n`, { mode: 0o600 });
  return { publicKey: wallet.publicKey.toBase58(), file: path };
}

export interface SubscribeOptions {
  readonly keypair: string;
  readonly plan: string;
  readonly referral?: string;
  readonly api: string;
  readonly rpc: string;
  /** The API's public origin the signed redemption names (default: the origin of `api`). */
  readonly domain?: string;
}

/** The customer's subscribe flow (@gridlab/client/wallet): a nonce only a signed PUT redeems, signed payment, confirmation, signed redemption. */
export async function subscribeFlow(opts: SubscribeOptions): Promise<IssuedKey> {
  if (opts.plan !== 'monthly' && opts.plan !== 'annual') throw new InputError('--plan must be monthly or annual');
  const wallet = readKeypair(opts.keypair);
  return subscribe(new GridlabClient({ baseUrl: opts.api }), {
    signer: wallet,
    connection: opts.rpc,
    plan: opts.plan,
    ...(opts.referral === undefined ? {} : { referralCode: opts.referral }),
    ...(opts.domain === undefined ? {} : { domain: opts.domain }),
    onPayment: ({ start, txSig }) =>
      process.stderr.write(`paid ${start.priceToken} tokens to ${start.instructions.to}: nonce ${start.nonce}, transaction ${txSig}\n`),
  });
}

/** Key rotation: the wallet signs the reissue message, only if it names `domain` (default: the origin of `api`). */
export async function reissueFlow(opts: { readonly keypair: string; readonly api: string; readonly domain?: string }): Promise<IssuedKey> {
  return reissue(new GridlabClient({ baseUrl: opts.api }), { signer: readKeypair(opts.keypair), ...(opts.domain === undefined ? {} : { domain: opts.domain }) });
}
