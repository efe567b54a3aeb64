/**
 * The game's transactions, history and live, derived on demand: `getTransaction` from a
 * signature, and the newest-first listing `getSignaturesForAddress` pages through for a
 * round's PDA (its deploys, its reset, the previous reset that created it, its close) or
 * for the board and the program (every game transaction). Nothing is stored per
 * transaction: the Chronicle derives a round again, and a signature says which
 * transaction it is.
 *
 * Transactions are ordered by slot, then within a slot: a reset, then closes (by round),
 * then deploys (in the model's order), then the ledger's own transactions.
 */
import { blockTimeOf } from '../game/chain-time';
import type { Chronicle } from '../game/chronicle';
import type { GameKeys } from './game-keys';
import type { GameSignatures, GameTxId } from './game-signatures';
import type { GameTransactionBuilder, TransactionJson } from './game-transactions';

/** Where a transaction sits in the chain's total order. */
export interface TxPosition {
  readonly slot: number;
  readonly pos: number;
}

export interface SignatureEntry extends TxPosition {
  readonly signature: string;
  readonly blockTime: number;
  readonly err: unknown;
}

const RESET_POS = 0;
const CLOSE_POS = 1;
const DEPLOY_POS = 2 ** 41;
/** Position of the ledger's transactions (payments, mints) within their slot: after the game's. */
export const LEDGER_POS = 2 ** 50;
const NEWEST: TxPosition = { slot: Number.POSITIVE_INFINITY, pos: 0 };

interface GameEntry extends TxPosition {
  readonly id: GameTxId;
}

/** What the game's history reads of the running chain. */
export interface ChainView {
  slot(): number;
  /** The last settled round (its reset happened). */
  settledUpTo(): number;
  /**
   * The last round whose transactions are derived (default: every round the chronicle
   * played). When the real program plays the live rounds, their transactions are the
   * ledger's, and only the history is derived.
   */
  derivedUpTo?(): number;
}

export class GameHistory {
  constructor(
    private readonly chronicle: Chronicle,
    private readonly keys: GameKeys,
    private readonly signatures: GameSignatures,
    private readonly builder: GameTransactionBuilder,
    private readonly chain: ChainView,
    private readonly expirySlots: number,
  ) {}

  /** The last round this history derives. */
  private lastId(): number {
    const bound = this.chain.derivedUpTo?.();
    return bound === undefined ? this.chronicle.lastId : Math.min(bound, this.chronicle.lastId);
  }

  /** The derived round whose PDA `address` is, or null. */
  private roundOf(address: string): number | null {
    const last = this.lastId();
    const id = this.keys.roundIdOf(address, last);
    return id !== null && id <= last ? id : null;
  }

  private has(id: number): boolean {
    return this.chronicle.has(id) && id <= this.lastId();
  }

  /** The slot the crank closes round `id` at. */
  closeSlot(id: number): number {
    return closeSlotOf(this.chronicle.endSlot(id), this.chronicle.resetSlot(id), this.expirySlots);
  }

  /** Whether round `id` was closed by `slot`. */
  isClosed(id: number, slot: number): boolean {
    return id <= this.chain.settledUpTo() && this.closeSlot(id) <= slot;
  }

  /** The transaction a signature names, or null when the devnet did not issue it or it has not happened yet. */
  transaction(signature: string): TransactionJson | null {
    const id = this.signatures.decode(signature);
    if (id === null || this.position(id) === null) return null;
    switch (id.kind) {
      case 'deploy':
        return this.builder.deploy(this.chronicle.derive(id.roundId), id.index, signature);
      case 'reset':
        return this.builder.reset(this.chronicle.derive(id.roundId), signature);
      case 'close':
        return this.builder.close(id.roundId, this.closeSlot(id.roundId), signature);
    }
  }

  /** Where a game signature sits, or null when it is not one that happened. */
  positionOf(signature: string): TxPosition | null {
    const id = this.signatures.decode(signature);
    return id === null ? null : this.position(id);
  }

  /** Whether an address has game transactions to list. */
  lists(address: string): boolean {
    return address === this.keys.board || address === this.keys.program || this.roundOf(address) !== null;
  }

  /** The address's game transactions strictly before `before` (newest first). */
  *entries(address: string, before: TxPosition = NEWEST): Generator<SignatureEntry> {
    const source =
      address === this.keys.board || address === this.keys.program ? this.everything(before) : this.ofRound(this.roundOf(address), before);
    for (const e of source) {
      yield { slot: e.slot, pos: e.pos, signature: this.signatures.encode(e.id), blockTime: blockTimeOf(e.slot), err: null };
    }
  }

  private position(id: GameTxId): TxPosition | null {
    const { roundId, index } = id;
    if (!Number.isSafeInteger(roundId) || !this.has(roundId)) return null;
    const now = this.chain.slot();
    switch (id.kind) {
      case 'deploy': {
        const deploys = this.chronicle.derive(roundId).deploys;
        const slot = index < deploys.length ? deploys.slot[index]! : undefined;
        return slot === undefined || slot > now ? null : { slot, pos: DEPLOY_POS + index };
      }
      case 'reset':
        return index !== 0 || roundId > this.chain.settledUpTo() ? null : { slot: this.chronicle.resetSlot(roundId), pos: RESET_POS };
      case 'close':
        return index !== 0 || !this.isClosed(roundId, now) ? null : { slot: this.closeSlot(roundId), pos: CLOSE_POS + roundId };
    }
  }

  /** Every game transaction: the rounds' deploys and resets merged with the closes, which come a day later. */
  private *everything(before: TxPosition): Generator<GameEntry> {
    yield* merge([this.roundsFrom(before), this.closesFrom(before)]);
  }

  /** Deploys and resets, round after round backwards (a round's transactions all precede the next round's). */
  private *roundsFrom(before: TxPosition): Generator<GameEntry> {
    const now = this.chain.slot();
    const settled = this.chain.settledUpTo();
    for (let r = Math.min(this.chronicle.roundAt(Math.min(before.slot, now)), this.lastId()); r >= this.chronicle.firstId; r--) {
      const round = this.chronicle.derive(r);
      if (r <= settled) {
        const reset: GameEntry = { slot: round.resetSlot, pos: RESET_POS, id: { kind: 'reset', roundId: r, index: 0 } };
        if (earlier(reset, before)) yield reset;
      }
      for (let i = round.deploys.length - 1; i >= 0; i--) {
        const slot = round.deploys.slot[i]!;
        const e: GameEntry = { slot, pos: DEPLOY_POS + i, id: { kind: 'deploy', roundId: r, index: i } };
        if (slot <= now && earlier(e, before)) yield e;
      }
    }
  }

  private *closesFrom(before: TxPosition): Generator<GameEntry> {
    const limit = Math.min(before.slot, this.chain.slot());
    // Close slots grow with the round id: find the last round closed by `limit`.
    let lo = this.chronicle.firstId;
    let hi = this.chain.settledUpTo();
    let last = lo - 1;
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.closeSlot(mid) <= limit) {
        last = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    for (let r = last; r >= this.chronicle.firstId; r--) {
      const e: GameEntry = { slot: this.closeSlot(r), pos: CLOSE_POS + r, id: { kind: 'close', roundId: r, index: 0 } };
      if (earlier(e, before)) yield e;
    }
  }

  /** A round PDA's transactions: the reset that created it, its deploys, its reset, its close. */
  private *ofRound(roundId: number | null, before: TxPosition): Generator<GameEntry> {
    if (roundId === null) return;
    const now = this.chain.slot();
    const out: GameEntry[] = [];
    const round = this.chronicle.derive(roundId);
    if (this.has(roundId - 1)) out.push({ slot: this.chronicle.resetSlot(roundId - 1), pos: RESET_POS, id: { kind: 'reset', roundId: roundId - 1, index: 0 } });
    for (let i = 0; i < round.deploys.length; i++) {
      const slot = round.deploys.slot[i]!;
      if (slot <= now) out.push({ slot, pos: DEPLOY_POS + i, id: { kind: 'deploy', roundId, index: i } });
    }
    if (roundId <= this.chain.settledUpTo()) out.push({ slot: round.resetSlot, pos: RESET_POS, id: { kind: 'reset', roundId, index: 0 } });
    if (this.isClosed(roundId, now)) out.push({ slot: this.closeSlot(roundId), pos: CLOSE_POS + roundId, id: { kind: 'close', roundId, index: 0 } });
    for (let i = out.length - 1; i >= 0; i--) if (earlier(out[i]!, before)) yield out[i]!;
  }
}

/** The crank closes a round at the first slot where `end_slot + expiry < slot`, and not before its reset. */
export function closeSlotOf(endSlot: number, resetSlot: number, expirySlots: number): number {
  return Math.max(endSlot + expirySlots + 1, resetSlot);
}

/** a comes strictly before b. */
export function earlier(a: TxPosition, b: TxPosition): boolean {
  return a.slot < b.slot || (a.slot === b.slot && a.pos < b.pos);
}

/** Merges newest-first streams into one newest-first stream. */
export function* merge<T extends TxPosition>(streams: Iterator<T>[]): Generator<T> {
  const heads = streams.map((s) => s.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]!;
      if (h.done === true) continue;
      if (best === -1 || earlier((heads[best] as IteratorYieldResult<T>).value, h.value)) best = i;
    }
    if (best === -1) return;
    yield (heads[best] as IteratorYieldResult<T>).value;
    heads[best] = streams[best]!.next();
  }
}
