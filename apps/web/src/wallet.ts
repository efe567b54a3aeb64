/**
 * Browser wallets through the Wallet Standard: any installed Solana wallet that can
 * connect and sign messages (Phantom, Solflare, Backpack, ...). Used to sign in (Sign-In
 * With Solana), to redeem a subscription payment with the owner's signature (the
 * front-run-safe flow) and to rotate the key.
 */
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';

const CONNECT = 'standard:connect';
const SIGN_MESSAGE = 'solana:signMessage';
const SIGN_TRANSACTION = 'solana:signTransaction';

interface ConnectFeature {
  readonly connect: (input?: { silent?: boolean }) => Promise<{ readonly accounts: readonly WalletAccount[] }>;
}
interface SignTransactionFeature {
  readonly signTransaction: (...inputs: { account: WalletAccount; transaction: Uint8Array; chain?: string }[]) => Promise<readonly { signedTransaction: Uint8Array }[]>;
}
interface SignMessageFeature {
  readonly signMessage: (...inputs: { account: WalletAccount; message: Uint8Array }[]) => Promise<readonly { signedMessage: Uint8Array; signature: Uint8Array }[]>;
}

export interface ConnectedWallet {
  readonly name: string;
  readonly address: string;
  /** Signs the message's UTF-8 bytes; the signature in base64, as the API takes it. */
  signMessage(message: string): Promise<string>;
  signMessageBytes(message: Uint8Array): Promise<Uint8Array>;
  /** Signs a serialized transaction (the wallet pays from the page); absent when the wallet cannot. */
  readonly signTransaction?: (transaction: Uint8Array) => Promise<Uint8Array>;
}

/** The installed wallets that can sign in and sign messages. */
export function solanaWallets(): readonly Wallet[] {
  return getWallets()
    .get()
    .filter((w) => CONNECT in w.features && SIGN_MESSAGE in w.features && w.chains.some((c) => c.startsWith('solana:')));
}

/** Asks the wallet to connect; signatures come back base64, as the API takes them. */
export async function connect(wallet: Wallet): Promise<ConnectedWallet> {
  const { accounts } = await (wallet.features[CONNECT] as ConnectFeature).connect();
  const account = accounts[0];
  if (account === undefined) throw new Error(`${wallet.name} shared no account`);
  const signMessageBytes = async (message: Uint8Array): Promise<Uint8Array> => {
    const [signed] = await (wallet.features[SIGN_MESSAGE] as SignMessageFeature).signMessage({ account, message });
    if (signed === undefined) throw new Error(`${wallet.name} did not sign`);
    return signed.signature;
  };
  const transactions = wallet.features[SIGN_TRANSACTION] as SignTransactionFeature | undefined;
  return {
    name: wallet.name,
    address: account.address,
    signMessageBytes,
    signMessage: async (message) => {
      let binary = '';
      for (const b of await signMessageBytes(new TextEncoder().encode(message))) binary += String.fromCharCode(b);
      return btoa(binary);
    },
    ...(transactions === undefined
      ? {}
      : {
          signTransaction: async (transaction: Uint8Array) => {
            const [signed] = await transactions.signTransaction({ account, transaction });
            if (signed === undefined) throw new Error(`${wallet.name} did not sign the transaction`);
            return signed.signedTransaction;
          },
        }),
  };
}

/** Calls `listener` whenever a wallet registers (extensions load after the page). */
export function onWalletsChanged(listener: () => void): () => void {
  const wallets = getWallets();
  const offRegister = wallets.on('register', listener);
  const offUnregister = wallets.on('unregister', listener);
  return () => {
    offRegister();
    offUnregister();
  };
}
