import { address, lamports as toLamports } from '@solana/kit';
import bs58 from 'bs58';
import type { LiteSVM } from 'litesvm';

/** An account as the RPC serves it. */
export interface AccountView {
  readonly lamports: number;
  readonly data: Uint8Array;
  readonly owner: string;
  readonly executable: boolean;
}

/** Every account the store holds, as the ledger file saves it. */
export interface StoredAccount {
  readonly pubkey: string;
  readonly account: AccountView;
  /** Where it lives: the overlay (game and test accounts) or LiteSVM (wallets, mints, token accounts). */
  readonly place: 'overlay' | 'svm';
}

/** Owners of LiteSVM's own accounts (sysvars, loaders), which a new LiteSVM recreates itself. */
const BUILTIN_OWNERS = new Set([
  'Sysvar1111111111111111111111111111111111111',
  'NativeLoader1111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
]);

export type AccountListener = (pubkey: string, account: AccountView, slot: number) => void;

/**
 * Accounts of the devnet: the game's accounts (board, rounds, raw test accounts) live
 * in an overlay map, since no transaction touches them and thousands are written at
 * start; everything else (wallets, mints, token accounts) lives in LiteSVM, where
 * transactions run. Reads check the overlay first. Every write notifies listeners
 * synchronously, which is what keeps WebSocket notifications within a millisecond.
 */
export class AccountStore {
  private readonly overlay = new Map<string, AccountView>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly listeners = new Set<AccountListener>();
  /** Addresses ever written in LiteSVM (by putSvm or a transaction): what `accounts()` reads back. */
  private readonly svmKeys = new Set<string>();
  /** Owners whose accounts may live in both places (the ORE program when it runs in LiteSVM). */
  private readonly splitOwners = new Set<string>();

  constructor(private readonly svm: LiteSVM) {}

  /**
   * Says that `owner`'s accounts live in LiteSVM as well as in the overlay: when the real
   * program runs there, it writes the live rounds, while history rounds stay overlaid.
   */
  ownedInBothPlaces(owner: string): void {
    this.splitOwners.add(owner);
  }

  onWrite(listener: AccountListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(pubkey: string): AccountView | null {
    const overlaid = this.overlay.get(pubkey);
    if (overlaid !== undefined) return overlaid;
    const account = this.svm.getAccount(address(pubkey));
    if (!account.exists) return null;
    return {
      lamports: Number(account.lamports),
      data: account.data,
      owner: account.programAddress,
      executable: account.executable,
    };
  }

  /** Writes an overlay account (game or test) and notifies. */
  put(pubkey: string, account: AccountView, slot: number): void {
    const previous = this.overlay.get(pubkey);
    if (previous !== undefined && previous.owner !== account.owner) this.byOwner.get(previous.owner)?.delete(pubkey);
    this.overlay.set(pubkey, account);
    let owned = this.byOwner.get(account.owner);
    if (owned === undefined) this.byOwner.set(account.owner, (owned = new Set()));
    owned.add(pubkey);
    this.notify(pubkey, account, slot);
  }

  /** Deletes an overlay account (a closed round) and notifies, as a node reports a closed account: empty, system-owned. */
  remove(pubkey: string, slot: number): void {
    const previous = this.overlay.get(pubkey);
    if (previous === undefined) return;
    this.overlay.delete(pubkey);
    this.byOwner.get(previous.owner)?.delete(pubkey);
    this.notify(pubkey, { lamports: 0, data: new Uint8Array(0), owner: '11111111111111111111111111111111', executable: false }, slot);
  }

  /** Writes an account into LiteSVM (mints, token accounts created at start). */
  putSvm(pubkey: string, account: AccountView): void {
    this.svmKeys.add(pubkey);
    this.svm.setAccount({
      address: address(pubkey),
      data: account.data,
      executable: account.executable,
      lamports: toLamports(BigInt(account.lamports)),
      programAddress: address(account.owner),
      space: BigInt(account.data.length),
    });
  }

  /** Notifies listeners of accounts a transaction may have changed. */
  notifyChanged(pubkeys: readonly string[], slot: number): void {
    for (const pubkey of pubkeys) this.svmKeys.add(pubkey);
    if (this.listeners.size === 0) return;
    for (const pubkey of pubkeys) {
      const account = this.get(pubkey);
      if (account !== null) this.notify(pubkey, account, slot);
    }
  }

  /** Accounts owned by `owner`: the overlay's, or LiteSVM's for other programs, or both (ownedInBothPlaces). */
  programAccounts(owner: string): { pubkey: string; account: AccountView }[] {
    const owned = this.byOwner.get(owner);
    const overlaid = owned === undefined ? [] : [...owned].map((pubkey) => ({ pubkey, account: this.overlay.get(pubkey)! }));
    if (owned !== undefined && !this.splitOwners.has(owner)) return overlaid;
    const inSvm = this.svm
      .getProgramAccounts(address(owner))
      .filter((a) => !this.overlay.has(a.address))
      .map((a) => ({
        pubkey: a.address,
        account: { lamports: Number(a.lamports), data: a.data as Uint8Array, owner: a.programAddress, executable: a.executable },
      }));
    return overlaid.length === 0 ? inSvm : [...overlaid, ...inSvm];
  }

  /**
   * Every account the devnet holds: the whole overlay, and each LiteSVM account a
   * transaction or putSvm wrote that still exists (programs, sysvars and loader accounts
   * excluded: a new LiteSVM has its own).
   */
  accounts(): StoredAccount[] {
    const out: StoredAccount[] = [];
    for (const [pubkey, account] of this.overlay) out.push({ pubkey, account, place: 'overlay' });
    for (const pubkey of this.svmKeys) {
      if (this.overlay.has(pubkey)) continue;
      const account = this.svm.getAccount(address(pubkey));
      if (!account.exists || account.executable || BUILTIN_OWNERS.has(account.programAddress)) continue;
      out.push({
        pubkey,
        account: { lamports: Number(account.lamports), data: account.data, owner: account.programAddress, executable: false },
        place: 'svm',
      });
    }
    return out;
  }

  /** Writes saved accounts back (before anything listens: no notifications). */
  restore(accounts: readonly StoredAccount[]): void {
    for (const { pubkey, account, place } of accounts) {
      if (place === 'svm') {
        this.putSvm(pubkey, account);
        continue;
      }
      this.overlay.set(pubkey, account);
      let owned = this.byOwner.get(account.owner);
      if (owned === undefined) this.byOwner.set(account.owner, (owned = new Set()));
      owned.add(pubkey);
    }
  }

  private notify(pubkey: string, account: AccountView, slot: number): void {
    for (const listener of this.listeners) listener(pubkey, account, slot);
  }
}

export function isBase58Pubkey(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < 32 || value.length > 44) return false;
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}

