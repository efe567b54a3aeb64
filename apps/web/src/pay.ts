/**
 * Paying from the page with a browser wallet: @gridlab/client's subscribe() (the token
 * transfer with the nonce memo, confirmation, then the owner-signed redemption) with the
 * Wallet Standard wallet as its signer. Loaded on demand: web3.js stays out of the first load.
 */
import { Buffer } from 'buffer';
import { GridlabClient, type IssuedKey, type SubscriptionStart } from '@gridlab/client';
import { subscribe, type WalletSigner } from '@gridlab/client/wallet';
import { PublicKey, Transaction } from '@solana/web3.js';
import type { ConnectedWallet } from './wallet';

// web3.js and spl-token reach for the Node global in places.
(globalThis as { Buffer?: typeof Buffer }).Buffer ??= Buffer;

export async function payWithWallet(
  wallet: ConnectedWallet,
  options: { rpcUrl: string; domain: string; plan: 'monthly' | 'annual'; referralCode?: string; onPayment: (p: { start: SubscriptionStart; txSig: string }) => void; signal?: AbortSignal },
): Promise<IssuedKey> {
  const sign = wallet.signTransaction;
  if (sign === undefined) throw new Error(`${wallet.name} cannot sign transactions`);
  const signer: WalletSigner = {
    publicKey: new PublicKey(wallet.address),
    signTransaction: async (tx) => Transaction.from(await sign(tx.serialize({ requireAllSignatures: false, verifySignatures: false }))),
    signMessage: (message) => wallet.signMessageBytes(message),
  };
  // Its own client: the issued key stays in this call's result, not in the page's session client.
  const client = new GridlabClient({ baseUrl: location.origin });
  return subscribe(client, {
    signer,
    connection: options.rpcUrl,
    domain: options.domain,
    plan: options.plan,
    ...(options.referralCode === undefined ? {} : { referralCode: options.referralCode }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onPayment: options.onPayment,
  });
}
