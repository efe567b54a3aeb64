/**
 * The ports billing's app needs, declared here and implemented by adapters/ (main.ts wires
 * them): what it stores about nonces, payments, subscribers and the facts outbox, where it
 * reads payments, what follows a commit, and where nonces come from.
 */
import type { IssuedKey } from '@gridlab/billing-store';
import type { Plan, SubscriptionFact, TierFact } from '@gridlab/contracts';
import type { PaymentTx } from '../domain/verify-payment';

export interface PaymentNonce {
  readonly nonce: string;
  readonly ownerPubkey: string;
  readonly plan: Plan;
  readonly amountBaseUnits: bigint;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly consumed: boolean;
  /** Only a PUT signed by the owner redeems it (POST /subscribe requireSignature). */
  readonly requireSignature: boolean;
}

export interface ReissueNonce {
  readonly nonce: string;
  readonly ownerPubkey: string;
  readonly message: string;
  readonly expiresAt: Date;
  readonly consumed: boolean;
}

/** A fact written to the outbox, to publish after commit. */
export type OutboxFact =
  | { readonly seq: number; readonly kind: 'subscription'; readonly payload: SubscriptionFact }
  | { readonly seq: number; readonly kind: 'tier'; readonly payload: TierFact };

/** What a completed payment or reissue produced. */
export interface KeyChange {
  readonly issued: IssuedKey;
  readonly facts: readonly OutboxFact[];
}

/** The verified payment being recorded. */
export interface VerifiedPayment {
  readonly nonce: string;
  readonly ownerPubkey: string;
  readonly txSig: string;
  readonly slot: number;
  readonly blockTime: Date | null;
  /** Whether the redemption was signed by the owner's wallet. */
  readonly signed: boolean;
  /** SHA-256 of the signature's bytes when signed: a reclaim must bring another. */
  readonly signatureHash: Buffer | null;
}

/** A signed redemption of a nonce already consumed. */
export interface Reclaim {
  readonly nonce: string;
  readonly ownerPubkey: string;
  readonly txSig: string;
  /** How long after the redemption a signed retry may still take the key back. */
  readonly windowMs: number;
  /** SHA-256 of the reclaim's signature: refused when it is the one that redeemed the nonce (a replay). */
  readonly signatureHash: Buffer;
}

/** Billing's storage: every change that issues a key or changes the active count is atomic with its facts. */
export interface BillingStore {
  activeCount(now: Date): Promise<number>;
  activeSubscriber(subscriberId: string, now: Date): Promise<{ ownerPubkey: string } | null>;
  subscriberOf(ownerPubkey: string): Promise<{ id: string } | null>;
  /** Whether the owner holds a working key: not revoked, its paid period not ended. */
  hasActiveKey(ownerPubkey: string, now: Date): Promise<boolean>;
  createPaymentNonce(n: Omit<PaymentNonce, 'consumed'> & { readonly referralId: string | null }): Promise<void>;
  findPaymentNonce(nonce: string): Promise<PaymentNonce | null>;
  txSigUsed(txSig: string): Promise<boolean>;
  completePayment(payment: VerifiedPayment, now: Date): Promise<KeyChange>;
  reclaimPayment(r: Reclaim, now: Date): Promise<IssuedKey>;
  createReissueNonce(n: Omit<ReissueNonce, 'consumed'> & { readonly createdAt: Date }): Promise<void>;
  findReissueNonce(nonce: string): Promise<ReissueNonce | null>;
  completeReissue(nonce: string, ownerPubkey: string, now: Date): Promise<IssuedKey>;
  revokeKeyHash(keyHash: Buffer, reason: string, now: Date): Promise<boolean>;
  /** Raises the subscriber's dashboard session epoch past `epoch`; the epoch now, or null for an unknown subscriber. */
  endSessions(subscriberId: string, epoch: number): Promise<number | null>;
  expireDue(now: Date, limit?: number): Promise<OutboxFact[]>;
}

/** Where the chain is read (the adapter over @solana/web3.js). */
export interface PaymentReader {
  fetch(txSig: string): Promise<PaymentTx | null>;
}

/** What happens after a commit: revoke old keys in every gateway's cache, publish facts. */
export interface AfterCommit {
  /** Delivers a committed revocation now (false: left to the outbox relay). */
  revoked(keyHash: Buffer, revokedAt: Date): Promise<unknown>;
  facts(facts: readonly OutboxFact[]): Promise<void>;
  /** Announces that a subscriber's dashboard sessions below `epoch` are over (gateways close them at once). */
  sessionsEnded(subscriberId: string, epoch: number, endedAt: Date): void;
}

/** A fresh nonce of a kind, `pay-` (payment) or `rei-` (reissue) + 22 random base58 characters: randomness is a port. */
export type NewNonce = (kind: 'pay' | 'rei') => string;
