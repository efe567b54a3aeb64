/**
 * The ports the gateway's app needs, declared here and implemented by adapters/ (main.ts
 * wires them).
 */
import type { KeyShared } from '@gridlab/contracts';
import type { BucketDecision, BucketPolicy } from '../domain/token-bucket';

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

/** What a call of the shared gate hands back of this replica's ended lease, and whether it may take a new one. */
export interface LeaseCall {
  /** Unused tokens of the ended lease, given back. */
  readonly refund: number;
  /** Everything that lease was granted, no longer counted as out on lease. */
  readonly released: number;
  /** Whether the bucket may grant this replica a lease with this request. */
  readonly askLease: boolean;
}

/** What the shared gate knows of a key hash, and what its bucket decided. */
export type GateAnswer =
  | { readonly state: 'miss' }
  | { readonly state: 'invalid' }
  | { readonly state: 'expired'; readonly subscriberId: string; readonly paidUntilMs: number }
  | {
      readonly state: 'ok';
      readonly subscriberId: string;
      readonly paidUntilMs: number;
      readonly allowed: boolean;
      /** Tokens left in the shared bucket. */
      readonly sharedTokens: number;
      /** Tokens granted to this replica as a lease, beyond the request's cost. */
      readonly leaseTokens: number;
      /** Distinct client addresses of the key within the sharing window (-1: not tracked this time). */
      readonly distinctAddresses: number;
      /** True the first time in a window that the address count exceeded the limit. */
      readonly newlyFlagged: boolean;
    };

/** The shared key cache, buckets and key-sharing tracker of every replica (Redis in production). */
export interface SharedGate {
  /**
   * What the cache knows about the key; when it is live, also takes `cost` from its
   * bucket (with `lease` settled) and, when `track`, records `address` in the sharing
   * tracker. Called on every request a lease does not answer: no argument object.
   */
  check(keyHash: Buffer, address: string, cost: number, track: boolean, lease: LeaseCall): Promise<GateAnswer>;
  /** Caches a key record looked up in PostgreSQL, unless something (a revocation's tombstone) is cached already. */
  remember(keyHash: Buffer, record: KeyRecord): Promise<void>;
  /** A public endpoint's request: `cost` tokens from the address's bucket. */
  takeForAddress(policy: BucketPolicy, address: string, cost?: number): Promise<BucketDecision>;
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
