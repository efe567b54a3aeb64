/**
 * The on-chain checks of PUT /subscribe (SPEC 5), in their order, over a transaction
 * as the RPC returned it. Pure: the chain adapter fetches, this decides.
 */

/** The two SPL Memo program ids (v1 and v2); either carries the nonce. */
const MEMO_PROGRAM_IDS: ReadonlySet<string> = new Set([
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
]);

/** One token balance entry of a transaction's meta (pre or post). */
export interface TokenBalance {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner: string | undefined;
  readonly amount: string;
}

/** What the checks need of a confirmed transaction. */
export interface PaymentTx {
  readonly slot: number;
  /** Unix seconds, or null when the node does not know it. */
  readonly blockTime: number | null;
  /** `meta.err`: null when the transaction succeeded. */
  readonly err: unknown;
  /** Public keys that signed the transaction. */
  readonly signers: readonly string[];
  /** Top-level instructions: program id and raw data. */
  readonly instructions: readonly { readonly programId: string; readonly data: Uint8Array }[];
  readonly preTokenBalances: readonly TokenBalance[];
  readonly postTokenBalances: readonly TokenBalance[];
}

/** The payment a nonce asks for. */
export interface ExpectedPayment {
  readonly nonce: string;
  readonly ownerPubkey: string;
  readonly treasury: string;
  readonly mint: string;
  readonly amountBaseUnits: bigint;
  readonly nonceCreatedAt: Date;
}

/** The name of the first failed check (in `detail` of the 422) and why. */
export interface FailedCheck {
  readonly check: 'transaction_failed' | 'memo' | 'owner_signature' | 'treasury_credit' | 'owner_debit' | 'block_time';
  readonly detail: string;
}

/** Seconds a transaction may predate its nonce (clock skew between us and the cluster). */
const BLOCK_TIME_TOLERANCE_S = 60;

/**
 * Net change of the token balances of `mint` held by accounts that `owner` owns:
 * post minus pre, summed over every such account (an account absent before counts 0).
 */
function balanceChange(tx: PaymentTx, mint: string, owner: string): bigint {
  const sum = (balances: readonly TokenBalance[]): bigint =>
    balances.reduce((total, b) => (b.mint === mint && b.owner === owner ? total + BigInt(b.amount) : total), 0n);
  return sum(tx.postTokenBalances) - sum(tx.preTokenBalances);
}

/** Runs the chain checks in SPEC order; the first that fails is returned, null when all pass. */
export function checkPayment(tx: PaymentTx, expected: ExpectedPayment): FailedCheck | null {
  if (tx.err !== null && tx.err !== undefined) {
    return { check: 'transaction_failed', detail: `the transaction failed on chain: ${JSON.stringify(tx.err)}` };
  }
  const memo = new TextEncoder().encode(expected.nonce);
  const hasMemo = tx.instructions.some((ix) => MEMO_PROGRAM_IDS.has(ix.programId) && bytesEqual(ix.data, memo));
  if (!hasMemo) return { check: 'memo', detail: `no Memo instruction carries the nonce ${expected.nonce}` };
  if (!tx.signers.includes(expected.ownerPubkey)) {
    return { check: 'owner_signature', detail: `the transaction is not signed by ${expected.ownerPubkey}` };
  }
  const credited = balanceChange(tx, expected.mint, expected.treasury);
  if (credited < expected.amountBaseUnits) {
    return {
      check: 'treasury_credit',
      detail: `the treasury's ${expected.mint} balance grew by ${credited} base units; ${expected.amountBaseUnits} are due`,
    };
  }
  const debited = -balanceChange(tx, expected.mint, expected.ownerPubkey);
  if (debited < expected.amountBaseUnits) {
    return {
      check: 'owner_debit',
      detail: `accounts of ${expected.ownerPubkey} paid ${debited > 0n ? debited : 0n} base units of ${expected.mint}; ${expected.amountBaseUnits} are due`,
    };
  }
  const earliest = expected.nonceCreatedAt.getTime() / 1000 - BLOCK_TIME_TOLERANCE_S;
  if (tx.blockTime === null || tx.blockTime < earliest) {
    return { check: 'block_time', detail: 'the transaction is older than the payment nonce' };
  }
  return null;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
