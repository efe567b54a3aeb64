import {
  inferPayoutRule,
  minerFacts,
  settleMinerFacts,
  type MinerFacts,
  type MinerRows,
  readOreTransaction,
  rebuildRound,
  toSettledRound,
  type OrePdas,
  type RebuildResult,
  type OreTransaction,
  type RoundLayout,
  type SolanaRpc,
} from '@gridlab/chain';
import type { PayoutRule, Round } from '@gridlab/contracts';
import { ChainError } from '@gridlab/errors';

/** `getSignaturesForAddress` returns at most this many signatures a page. */
const PAGE = 1000;
/** Transactions decoded between turns of the event loop (about a millisecond's work). */
const DECODE_SLICE = 64;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One round read from its transactions. */
export interface FetchedRound {
  readonly id: number;
  readonly result: RebuildResult;
  /** Signatures that touched the round's address (failed transactions included). */
  readonly signatures: number;
  /** Transactions fetched and decoded. */
  readonly transactions: number;
  /** RPC calls made (signature pages and transaction batches). */
  readonly calls: number;
  /** With the ledger on: what the round's transactions say of its wallets, which its miners' rows are settled from (`ledgerRows`). */
  readonly ledger?: MinerFacts;
  /** The miners' rows settled already, and under what (`settleWhenDecided`); `ledger` is dropped then. */
  readonly settled?: { readonly rows: MinerRows; readonly payoutRule: PayoutRule; readonly settledAt: string };
}

/**
 * Reads a round from its transactions: every signature of its address (newest first, in
 * pages), the successful ones fetched in batches at `finalized`, decoded, and rebuilt in
 * the order they ran. A round whose address no transaction touched never existed (or is
 * older than the provider's history).
 */
export class TransactionHistory {
  constructor(
    private readonly rpc: SolanaRpc,
    private readonly pdas: OrePdas,
    /** `ledger`: keep every deploy and the transactions, for the miners' rows (the rounds alone do not need them). */
    private readonly options: { readonly ledger?: boolean } = {},
  ) {}

  /** How many transactions touched round `id`'s address (one page read: at most 1,000). */
  async countSignatures(id: number): Promise<number> {
    return (await this.rpc.getSignaturesForAddress(this.pdas.round(id).toBase58(), { limit: PAGE, commitment: 'finalized' })).length;
  }

  async fetch(id: number, fallbackLayout: RoundLayout | null): Promise<FetchedRound> {
    const address = this.pdas.round(id).toBase58();
    const signatures: string[] = [];
    let seen = 0;
    let calls = 0;
    let before: string | undefined;
    for (;;) {
      const page = await this.rpc.getSignaturesForAddress(address, { limit: PAGE, commitment: 'finalized', ...(before === undefined ? {} : { before }) });
      calls++;
      seen += page.length;
      for (const s of page) if (s.err === null) signatures.push(s.signature);
      if (page.length < PAGE) break;
      before = page[page.length - 1]!.signature;
    }
    // Oldest first: the order the program ran them in, which its per-miner skip depends on.
    signatures.reverse();
    const fetched = await this.rpc.getTransactions(signatures);
    calls += Math.ceil(signatures.length / Math.max(1, this.rpc.batchSizeFor('getTransaction')));
    const ids = { programId: this.pdas.programId.toBase58(), board: this.pdas.board.toBase58() };
    const transactions: OreTransaction[] = [];
    for (const [i, tx] of fetched.entries()) {
      if (tx === null) throw new ChainError(`round ${id}: the RPC node has no transaction ${signatures[i]} it listed for the round's address`);
      // A round is hundreds of transactions: decoded a slice at a time, the live path is not held up behind it.
      if (i > 0 && i % DECODE_SLICE === 0) await nextTurn();
      transactions.push(readOreTransaction(tx, ids));
    }
    const result: RebuildResult =
      seen === 0
        ? { ok: false, reason: 'not_settled', detail: `round ${id}: no transaction touched its address ${address}`, skipped: 0, skippedReasons: {} }
        : rebuildRound({ roundId: id, roundAddress: address, transactions, fallbackLayout, listDeploys: this.options.ledger === true });
    const read = { id, result, signatures: seen, transactions: transactions.length, calls };
    // Read now, so the round's transactions are not kept until it is settled.
    if (this.options.ledger !== true || !result.ok) return read;
    return { ...read, ledger: minerFacts({ account: result.account, unknown: result.unknown, applied: result.applied, roundAddress: address, transactions }) };
  }
}

/**
 * The stored form of a rebuilt round: the rule that settled it (a voided or empty round
 * takes `previous`, the rule of the round before it), its reset's block time (`fallbackAt`
 * when the node gave none), no production cost (the chain keeps no past value).
 */
export function storedRound(
  fetched: FetchedRound & { readonly result: { readonly ok: true } },
  previous: PayoutRule | null,
  fallbackAt: Date,
): { ok: true; round: Round } | { ok: false; detail: string } {
  const { account, settledAt, unknown } = fetched.result;
  const inference = inferPayoutRule(account, previous);
  if (!inference.ok) return { ok: false, detail: inference.detail };
  return { ok: true, round: toSettledRound(account, settledAt ?? fallbackAt, { payoutRule: inference.rule, productionCost: null, source: 'transactions', unknown }) };
}

/**
 * The miners' rows of a round read with the ledger on, settled under the stored round's
 * rule and time; null when the round was read without it or not rebuilt.
 */
export function ledgerRows(fetched: FetchedRound, round: Pick<Round, 'payoutRule' | 'settledAt'>): MinerRows | null {
  const { settled } = fetched;
  if (settled !== undefined) {
    if (settled.payoutRule !== round.payoutRule || settled.settledAt !== round.settledAt) {
      throw new Error(`round ${fetched.id}: its miners were settled under ${settled.payoutRule} at ${settled.settledAt}, and it is stored under ${round.payoutRule} at ${round.settledAt}`);
    }
    return settled.rows;
  }
  if (fetched.ledger === undefined || !fetched.result.ok) return null;
  return settleMinerFacts(fetched.ledger, round);
}

/**
 * A round read with the ledger on, its miners' rows settled now and its wallets' facts
 * dropped (and its deploys), when the round alone decides the rule and the time `storedRound` stores it
 * under (not a voided or empty round, whose rule is the round before it; not a reset
 * without a block time); otherwise as it came. For a fill, which stores rounds as it read
 * them and holds a chunk of them until then: what it holds is what the collector copies,
 * and the rows are less than the facts they are settled from.
 */
export function settleWhenDecided(fetched: FetchedRound): FetchedRound {
  const { result, ledger } = fetched;
  if (ledger === undefined || !result.ok || result.settledAt === null) return fetched;
  const rule = inferPayoutRule(result.account, null);
  if (!rule.ok || (rule.basis !== 'layout' && rule.basis !== 'totals')) return fetched;
  const under = { payoutRule: rule.rule, settledAt: result.settledAt.toISOString() };
  const { ledger: _facts, ...rest } = fetched;
  // The deploys go too: the facts were read from them, and the rows say the rest.
  return { ...rest, result: { ...result, applied: [] }, settled: { rows: settleMinerFacts(ledger, under), ...under } };
}
