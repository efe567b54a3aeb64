import { AccountLayout, MintLayout, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { VersionedTransaction } from '@solana/web3.js';
import { address, getTransactionDecoder, lamports } from '@solana/kit';
import bs58 from 'bs58';
import { FailedTransactionMetadata, type InnerInstruction, type LiteSVM } from 'litesvm';
import type { AccountStore } from './account-store';
import { toRpcError } from './tx-errors';

const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM_ID.toBase58(), TOKEN_2022_PROGRAM_ID.toBase58()]);
const FEE_PER_SIGNATURE = 5000;

export interface TokenBalance {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner: string;
  readonly programId: string;
  readonly uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string };
}

/** A processed transaction, in the shapes getTransaction returns. */
export interface TxRecord {
  readonly signature: string;
  readonly slot: number;
  readonly blockTime: number;
  readonly err: unknown;
  /** Every address the transaction names (what getSignaturesForAddress lists it under). */
  readonly accounts: readonly string[];
  /** Absent for airdrops (no wire transaction to show). */
  readonly transaction?: {
    readonly version: 'legacy' | 0;
    readonly signatures: string[];
    readonly message: Record<string, unknown>;
  };
  readonly meta: Record<string, unknown>;
}

export type SubmitResult =
  | { readonly ok: true; readonly signature: string }
  | { readonly ok: false; readonly err: unknown; readonly logs: string[]; readonly signature: string };

export interface ChainClock {
  slot(): number;
  nowMs(): number;
}

/**
 * Executes signed wire transactions in LiteSVM and keeps what getTransaction,
 * getSignatureStatuses and signatureSubscribe need: slot, block time, error, logs,
 * lamport and SPL token balances before and after.
 */
export class Ledger {
  private readonly records = new Map<string, TxRecord>();
  /** Order of each record (its position within its slot, after the game's transactions). */
  private readonly sequence = new Map<string, number>();
  private readonly byAddress = new Map<string, string[]>();
  private readonly listeners = new Set<(record: TxRecord) => void>();
  private readonly decoder = getTransactionDecoder();

  constructor(
    private readonly svm: LiteSVM,
    private readonly store: AccountStore,
    private readonly clock: ChainClock,
  ) {}

  get(signature: string): TxRecord | undefined {
    return this.records.get(signature);
  }

  /** Every recorded transaction, oldest first (for the ledger file). */
  allRecords(): TxRecord[] {
    return [...this.records.values()];
  }

  /** Puts saved records back (getTransaction and getSignatureStatuses answer for them again). */
  restoreRecords(records: readonly TxRecord[]): void {
    for (const record of records) this.index(record);
  }

  /** Sequence number of a recorded transaction (records are numbered as they land). */
  sequenceOf(signature: string): number | undefined {
    return this.sequence.get(signature);
  }

  /** Signatures of the recorded transactions naming `address`, oldest first. */
  signaturesOf(address: string): readonly string[] {
    return this.byAddress.get(address) ?? [];
  }

  onRecord(listener: (record: TxRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Runs a wire transaction. With preflight, a failing transaction is reported and not
   * recorded (as a real RPC's simulation rejects it); without, it lands failed.
   */
  submit(wire: Uint8Array, skipPreflight: boolean): SubmitResult {
    const parsed = VersionedTransaction.deserialize(wire);
    const signature = bs58.encode(parsed.signatures[0] ?? new Uint8Array(64));
    const message = parsed.message;
    const keys = message.staticAccountKeys.map((k) => k.toBase58());
    const preBalances = keys.map((k) => this.store.get(k)?.lamports ?? 0);
    const preTokenBalances = this.tokenBalances(keys);
    const result = this.svm.sendTransaction(this.decoder.decode(wire));
    const failed = result instanceof FailedTransactionMetadata;
    const meta = failed ? result.meta() : result;
    const logs = meta.logs();
    const err = failed ? toRpcError(result.err()) : null;
    if (failed && !skipPreflight) return { ok: false, err, logs, signature };
    const slot = this.clock.slot();
    const version = message.version === 'legacy' ? 'legacy' : 0;
    const record: TxRecord = {
      signature,
      slot,
      blockTime: Math.floor(this.clock.nowMs() / 1000),
      err,
      accounts: keys,
      transaction: {
        version,
        signatures: parsed.signatures.map((s) => bs58.encode(s)),
        message: {
          accountKeys: keys,
          header: message.header,
          recentBlockhash: message.recentBlockhash,
          instructions: message.compiledInstructions.map((ix) => ({
            programIdIndex: ix.programIdIndex,
            accounts: [...ix.accountKeyIndexes],
            data: bs58.encode(ix.data),
            stackHeight: null,
          })),
          ...(version === 0 ? { addressTableLookups: [] } : {}),
        },
      },
      meta: {
        err,
        status: err === null ? { Ok: null } : { Err: err },
        fee: FEE_PER_SIGNATURE * parsed.signatures.length,
        preBalances,
        postBalances: keys.map((k) => this.store.get(k)?.lamports ?? 0),
        preTokenBalances,
        postTokenBalances: this.tokenBalances(keys),
        logMessages: logs,
        innerInstructions: innerInstructionsJson(meta.innerInstructions()),
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      },
    };
    this.commit(record, keys);
    return err === null ? { ok: true, signature } : { ok: false, err, logs, signature };
  }

  /** requestAirdrop: LiteSVM's faucet transfer, recorded for status queries. */
  airdrop(pubkey: string, amount: bigint): string {
    const result = this.svm.airdrop(address(pubkey), lamports(amount));
    if (result === null || result instanceof FailedTransactionMetadata) {
      throw new Error(`airdrop failed: ${result === null ? 'no result' : result.toString()}`);
    }
    const signature = bs58.encode(result.signature());
    this.commit(
      {
        signature,
        slot: this.clock.slot(),
        blockTime: Math.floor(this.clock.nowMs() / 1000),
        err: null,
        accounts: [pubkey],
        meta: { err: null, status: { Ok: null }, fee: FEE_PER_SIGNATURE, logMessages: result.logs() },
      },
      [pubkey],
    );
    return signature;
  }

  /**
   * Records a transaction as given, without running it (a test hook: what another party's
   * transaction on mainnet would look like, such as one forging an ORE event).
   */
  recordAsGiven(record: TxRecord): void {
    this.commit(record, []);
  }

  private commit(record: TxRecord, keys: readonly string[]): void {
    this.index(record);
    this.store.notifyChanged(keys, record.slot);
    for (const listener of this.listeners) listener(record);
  }

  private index(record: TxRecord): void {
    if (this.records.has(record.signature)) return;
    this.records.set(record.signature, record);
    this.sequence.set(record.signature, this.sequence.size);
    for (const address of new Set(record.accounts)) {
      let list = this.byAddress.get(address);
      if (list === undefined) this.byAddress.set(address, (list = []));
      list.push(record.signature);
    }
  }

  private tokenBalances(keys: readonly string[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    keys.forEach((key, accountIndex) => {
      const balance = this.tokenBalance(key, accountIndex);
      if (balance !== null) out.push(balance);
    });
    return out;
  }

  /** The SPL token balance of a token account, or null when `key` is not one. */
  tokenBalance(key: string, accountIndex = 0): TokenBalance | null {
    const account = this.store.get(key);
    if (account === null || !TOKEN_PROGRAMS.has(account.owner) || account.data.length < AccountLayout.span) return null;
    const token = AccountLayout.decode(account.data.subarray(0, AccountLayout.span));
    const mint = this.store.get(token.mint.toBase58());
    if (mint === null || mint.data.length < MintLayout.span) return null;
    const decimals = MintLayout.decode(mint.data.subarray(0, MintLayout.span)).decimals;
    const uiAmountString = formatUnits(token.amount, decimals);
    return {
      accountIndex,
      mint: token.mint.toBase58(),
      owner: token.owner.toBase58(),
      programId: account.owner,
      uiTokenAmount: { amount: token.amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString },
    };
  }
}

/** The CPIs each instruction made, as getTransaction's `json` encoding lists them (instructions that made none left out). */
function innerInstructionsJson(inner: readonly (readonly InnerInstruction[])[]): { index: number; instructions: Record<string, unknown>[] }[] {
  const out: { index: number; instructions: Record<string, unknown>[] }[] = [];
  inner.forEach((list, index) => {
    if (list.length === 0) return;
    out.push({
      index,
      instructions: list.map((entry) => {
        const ix = entry.instruction();
        return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: bs58.encode(ix.data()), stackHeight: entry.stackHeight() };
      }),
    });
  });
  return out;
}

/** `amount / 10^decimals` as an exact decimal string without trailing zeros. */
function formatUnits(amount: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
