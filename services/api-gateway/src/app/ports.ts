/**
 * The ports the gateway's app needs, declared here and implemented by adapters/ (main.ts
 * wires them).
 */
import type { KeyShared } from '@gridlab/contracts';
import type { BucketDecision } from '../domain/token-bucket';

/** What the cache knows about a key hash. */
export type CachedKey =
  | { readonly state: 'miss' }
  | { readonly state: 'invalid' }
  | { readonly state: 'expired'; readonly subscriberId: string; readonly paidUntilMs: number }
  | {
      readonly state: 'ok';
      readonly subscriberId: string;
      readonly paidUntilMs: number;
      readonly decision: BucketDecision;
      /** Distinct client addresses using the key within the sharing window (-1: not counted this time). */
      readonly distinctAddresses: number;
      /** True the first time in a window that the address count exceeded the limit. */
      readonly newlyFlagged: boolean;
    };

/** A key record to cache: the subscriber and the end of the paid period. */
export interface KeyRecord {
  readonly subscriberId: string;
  readonly paidUntilMs: number;
}

/** Where keys are looked up when the cache does not know them (billing's table). */
export interface KeyLookup {
  hash(apiKey: string): Buffer;
  lookup(keyHash: Buffer): Promise<{ subscriberId: string; paidUntil: Date } | null>;
}

/** Observers of what authentication sees (metrics, logs, sharing policy). */
export interface AuthEvents {
  redisFallback(active: boolean): void;
  keySharing(keyHash: Buffer, subscriberId: string, distinctAddresses: number): void;
}

/** The shared key cache, per-key rate limit and key-sharing tracker (Redis in production). */
export interface KeyGate {
  /** What the cache knows about the key; when valid, also takes `cost` from its bucket. */
  check(keyHash: Buffer, clientAddress: string, cost?: number): Promise<CachedKey>;
  /**
   * The same as `check` for a key this replica holds a lease of (see domain/token-lease),
   * answered from memory at once; null when `check` must ask the shared cache.
   */
  checkLeased(keyHash: Buffer, clientAddress: string, cost?: number): (CachedKey & { readonly state: 'ok' }) | null;
  /** Caches a key record looked up in PostgreSQL (unknown keys are never cached here). */
  remember(keyHash: Buffer, record: KeyRecord): Promise<void>;
  /** A revoked key: nothing this replica holds for it may serve another request. */
  forget(keyHashHex: string): void;
}

/** Sign-in messages already used: a signed SIWS message signs in once, on any replica. */
export interface SiwsNonces {
  /** Records `nonce` as used until `untilMs`; false when it already was. Throws when it cannot tell. */
  consume(nonce: string, untilMs: number): Promise<boolean>;
}

/**
 * Dashboard session epochs, kept durably by billing (a subscriber's sessions signed in
 * below its epoch are over): read from billing's store, raised by billing on sign-out.
 */
export interface SessionEpochs {
  /** The epoch of each subscriber given (an unknown one is absent). Throws when the store cannot answer. */
  current(subscriberIds: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** Raises the subscriber's epoch past `epoch` durably; the epoch now. Throws when that is not certain. */
  end(subscriberId: string, epoch: number): Promise<number>;
}

/** The active key of a wallet's subscription, by hash (billing's store). */
export interface WalletKeys {
  activeKeyOf(wallet: string): Promise<{ readonly keyHash: Buffer; readonly subscriberId: string; readonly paidUntil: Date } | null>;
}

/** Where a key-sharing signal goes: a counter, the `key.shared` fact, and billing's revocation. */
export interface KeySharingPorts {
  counted(): void;
  announce(fact: KeyShared): void;
  revoke(keyHash: Buffer): Promise<boolean>;
}
