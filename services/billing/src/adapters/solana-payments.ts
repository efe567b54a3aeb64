import { rpcEndpoint } from '@gridlab/chain';
import { ChainError } from '@gridlab/errors';
import { Connection, type VersionedTransactionResponse } from '@solana/web3.js';
import type { PaymentTx, TokenBalance } from '../domain/verify-payment';

/**
 * Reads payment transactions through @solana/web3.js from the configured RPC at
 * `confirmed` commitment. Unreachable or erroring RPC → ChainError (502).
 */
export class SolanaPayments {
  private readonly connection: Connection;

  constructor(rpcUrl: string, timeoutMs: number) {
    const endpoint = rpcEndpoint(rpcUrl);
    this.connection = new Connection(endpoint.url, {
      commitment: 'confirmed',
      disableRetryOnRateLimit: true,
      httpHeaders: endpoint.headers,
      fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
    });
  }

  /** The transaction, or null when the cluster does not (yet) know it at `confirmed`. */
  async fetch(txSig: string): Promise<PaymentTx | null> {
    let response: VersionedTransactionResponse | null;
    try {
      response = await this.connection.getTransaction(txSig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    } catch (error) {
      throw new ChainError('the Solana RPC could not be reached or failed; retry shortly', { cause: error });
    }
    return response === null ? null : toPaymentTx(response);
  }
}

/** The checks' view of a web3.js transaction response (legacy or v0 message). */
function toPaymentTx(response: VersionedTransactionResponse): PaymentTx {
  const message = response.transaction.message;
  const keys = message.getAccountKeys(
    response.meta?.loadedAddresses === undefined ? undefined : { accountKeysFromLookups: response.meta.loadedAddresses },
  );
  const signerCount = message.header.numRequiredSignatures;
  const signers: string[] = [];
  for (let i = 0; i < signerCount; i++) signers.push(keys.get(i)!.toBase58());
  const balances = (list: readonly { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string } }[] | null | undefined) =>
    (list ?? []).map((b): TokenBalance => ({ accountIndex: b.accountIndex, mint: b.mint, owner: b.owner, amount: b.uiTokenAmount.amount }));
  return {
    slot: response.slot,
    blockTime: response.blockTime ?? null,
    // A transaction without status metadata cannot be shown to have succeeded.
    err: response.meta === null ? 'no transaction status metadata' : response.meta.err,
    signers,
    instructions: message.compiledInstructions.map((ix) => ({ programId: keys.get(ix.programIdIndex)!.toBase58(), data: ix.data })),
    preTokenBalances: balances(response.meta?.preTokenBalances),
    postTokenBalances: balances(response.meta?.postTokenBalances),
  };
}
