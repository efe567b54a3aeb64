/**
 * `getSignaturesForAddress`: the game's transactions naming an address (derived) merged
 * with the ledger's (payments, mints, airdrops), newest first, paged with `before` and
 * `until` as a node pages its ledger: `before` unknown → nothing; `until` unknown → no
 * lower bound.
 */
import { type GameHistory, LEDGER_POS, type SignatureEntry, type TxPosition, earlier, merge } from './game-history';
import type { Ledger } from './ledger';

export interface SignaturesQuery {
  readonly limit: number;
  readonly before?: string;
  readonly until?: string;
}

/** One entry as the RPC answers it. */
export interface SignatureInfo {
  readonly signature: string;
  readonly slot: number;
  readonly err: unknown;
  readonly memo: null;
  readonly blockTime: number;
  readonly confirmationStatus: 'finalized';
}

export function signaturesForAddress(history: GameHistory, ledger: Ledger, address: string, query: SignaturesQuery): SignatureInfo[] {
  const positionOf = (signature: string): TxPosition | null => {
    const game = history.positionOf(signature);
    if (game !== null) return game;
    const record = ledger.get(signature);
    const seq = ledger.sequenceOf(signature);
    return record === undefined || seq === undefined ? null : { slot: record.slot, pos: LEDGER_POS + seq };
  };
  let before: TxPosition | undefined;
  if (query.before !== undefined) {
    const at = positionOf(query.before);
    if (at === null) return [];
    before = at;
  }
  const until = query.until === undefined ? null : positionOf(query.until);

  const streams: Iterator<SignatureEntry>[] = [ledgerEntries(ledger, address, before)];
  if (history.lists(address)) streams.push(history.entries(address, before));
  const out: SignatureInfo[] = [];
  for (const e of merge(streams)) {
    if (out.length >= query.limit || (until !== null && !earlier(until, e))) break;
    out.push({ signature: e.signature, slot: e.slot, err: e.err, memo: null, blockTime: e.blockTime, confirmationStatus: 'finalized' });
  }
  return out;
}

function* ledgerEntries(ledger: Ledger, address: string, before: TxPosition | undefined): Generator<SignatureEntry> {
  const signatures = ledger.signaturesOf(address);
  for (let i = signatures.length - 1; i >= 0; i--) {
    const signature = signatures[i]!;
    const record = ledger.get(signature)!;
    const e = { slot: record.slot, pos: LEDGER_POS + ledger.sequenceOf(signature)!, signature, blockTime: record.blockTime, err: record.err };
    if (before === undefined || earlier(e, before)) yield e;
  }
}
