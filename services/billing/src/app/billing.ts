import { createHash } from 'node:crypto';
import type { IssuedKey } from '@gridlab/billing-store';
import {
  PAYMENT_NONCE_RE,
  REISSUE_NONCE_RE,
  reissueMessage,
  type IssuedKeyReply,
  type Pricing,
  type ReissueCompleteRequest,
  type ReissueStart,
  type ReissueStartRequest,
  type SessionEndReply,
  type SessionEndRequest,
  type SubscribeCompleteRequest,
  type SubscribeStartRequest,
  type SubscriptionStart,
} from '@gridlab/contracts';
import { ConflictError, GoneError, InputError, NotFoundError, UnprocessableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import bs58 from 'bs58';
import type { AfterCommit, BillingStore, NewNonce, PaymentReader } from './ports';
import { priceSheet, quote, toTokens, type PriceLadder } from '../domain/pricing';
import { isValidSignature } from '../domain/reissue';
import { checkSubscribeSignature, signatureRequired } from '../domain/subscribe-signature';
import { checkPayment } from '../domain/verify-payment';

export interface BillingSettings {
  readonly treasury: string;
  readonly tokenMint: string;
  readonly ladder: PriceLadder;
  readonly paymentNonceTtlMs: number;
  readonly reissueNonceTtlMs: number;
  /** How long after a redemption a signed PUT of the same payment may take the key back. */
  readonly reclaimWindowMs: number;
  /** The origin a signed subscribe message must name and a reissue message names (PUBLIC_ORIGIN). */
  readonly publicOrigin: string;
  /**
   * `refuse`: every payment nonce needs the owner's signature. `first_subscription` (the
   * seed-compatible mode): a nonce started without requireSignature redeems unsigned for
   * an owner with no working key.
   */
  readonly unsignedRedemption: 'refuse' | 'first_subscription';
}

/** Seconds a client should wait before retrying a payment not yet visible at `confirmed`. */
const NOT_CONFIRMED_RETRY_AFTER_S = 2;

/**
 * Billing's use cases: pricing, the subscribe flow (nonce → verified payment → key) and
 * the reissue flow (nonce → wallet signature → key). Checks run in SPEC order; every
 * failure is a business error with its own code.
 */
export class Billing {
  constructor(
    private readonly repo: BillingStore,
    private readonly chain: PaymentReader,
    private readonly after: AfterCommit,
    private readonly settings: BillingSettings,
    private readonly logger: Logger,
    private readonly newNonce: NewNonce,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async pricing(): Promise<Pricing> {
    const activeSubs = await this.repo.activeCount(this.now());
    return { ...priceSheet(this.settings.ladder, activeSubs), treasury: this.settings.treasury, tokenMint: this.settings.tokenMint };
  }

  async startSubscription(request: SubscribeStartRequest): Promise<SubscriptionStart> {
    const owner = walletKey(request.ownerPubkey, '/ownerPubkey');
    const plan = request.plan ?? 'monthly';
    const now = this.now();
    let referralId: string | null = null;
    if (request.referralCode !== undefined && plan === 'monthly') {
      const referrer = await this.repo.activeSubscriber(request.referralCode, now);
      if (referrer === null || referrer.ownerPubkey === owner) {
        throw new InputError(`referral code ${request.referralCode} is not an active subscriber's id`, {
          errors: [{ path: '/referralCode', message: 'is not an active subscriber id of another wallet' }],
        });
      }
      referralId = request.referralCode;
    }
    const amount = quote(this.settings.ladder, await this.repo.activeCount(now), plan, referralId !== null);
    const nonce = this.newNonce('pay');
    const expiresAt = new Date(now.getTime() + this.settings.paymentNonceTtlMs);
    const unsignedAllowed = this.settings.unsignedRedemption === 'first_subscription';
    if (request.requireSignature === false && !unsignedAllowed) {
      throw new InputError('this service redeems payments only with the owner\'s signature: requireSignature cannot be false', {
        errors: [{ path: '/requireSignature', message: 'cannot be false: unsigned redemption is disabled on this service (UNSIGNED_REDEMPTION=refuse)' }],
      });
    }
    const requireSignature = request.requireSignature ?? !unsignedAllowed;
    await this.repo.createPaymentNonce({ nonce, ownerPubkey: owner, plan, referralId, amountBaseUnits: amount, createdAt: now, expiresAt, requireSignature });
    return {
      nonce,
      priceToken: toTokens(amount, this.settings.ladder.decimals),
      instructions: { to: this.settings.treasury, memo: nonce, amountBaseUnits: amount.toString(), mint: this.settings.tokenMint },
      expiresAt: expiresAt.toISOString(),
    };
  }

  /**
   * Redeems a payment for a key. Unsigned (the three fields of the contract, all public
   * once the payment lands) it is accepted only for a nonce that did not ask for a
   * signature and an owner with no working key, so it can never take a working key away
   * (403 signature_required, nothing consumed). Signed by the owner's wallet
   * (`signatureBase64` over `message`, see subscribeMessage), a redemption cannot be
   * lost: when the nonce is already consumed by the same transaction — by a front-runner,
   * or by this owner whose reply was lost after the commit — a new signature (not the one
   * that redeemed it: that body may have been seen) takes the key back (revoked) and a
   * new one is issued, once, without paying again.
   */
  async completeSubscription(request: SubscribeCompleteRequest): Promise<IssuedKeyReply> {
    const owner = walletKey(request.ownerPubkey, '/ownerPubkey');
    const nonce = PAYMENT_NONCE_RE.test(request.nonce) ? await this.repo.findPaymentNonce(request.nonce) : null;
    if (nonce === null || nonce.ownerPubkey !== owner) {
      throw new NotFoundError('nonce_not_found', `no payment nonce ${request.nonce} was issued to ${owner}`);
    }
    const signed = request.signatureBase64 !== undefined;
    const signatureHash = signed ? createHash('sha256').update(Buffer.from(request.signatureBase64!, 'base64')).digest() : null;
    if (signed) {
      checkSubscribeSignature(
        { ownerPubkey: owner, nonce: nonce.nonce, txSig: request.txSig, message: request.message, signatureBase64: request.signatureBase64! },
        this.settings.publicOrigin,
        this.now().getTime(),
      );
    } else if (request.message !== undefined) {
      throw new InputError('signatureBase64 is required with message', { errors: [{ path: '/signatureBase64', message: 'is required with message' }] });
    }
    if (nonce.consumed) {
      if (signatureHash !== null) return this.reclaim(nonce.nonce, owner, request.txSig, signatureHash);
      throw new ConflictError('nonce_consumed', 'this payment nonce has already been used; its owner can take the key back with a signed PUT');
    }
    // Checked again under the owner's lock when the payment is recorded; here it spares the chain lookup.
    if (!signed && (nonce.requireSignature || (await this.repo.hasActiveKey(owner, this.now())))) throw signatureRequired(nonce.requireSignature);
    if (nonce.expiresAt.getTime() <= this.now().getTime()) {
      throw new GoneError('nonce_expired', `the payment nonce expired at ${nonce.expiresAt.toISOString()}; start again with POST /subscribe`);
    }
    if (await this.repo.txSigUsed(request.txSig)) {
      throw new ConflictError('tx_already_used', 'this transaction has already paid for a subscription');
    }
    const tx = await this.chain.fetch(request.txSig);
    if (tx === null) {
      throw new ConflictError('payment_not_confirmed', 'the transaction is not confirmed yet; retry shortly', {
        retryAfterSeconds: NOT_CONFIRMED_RETRY_AFTER_S,
      });
    }
    const failed = checkPayment(tx, {
      nonce: nonce.nonce,
      ownerPubkey: owner,
      treasury: this.settings.treasury,
      mint: this.settings.tokenMint,
      amountBaseUnits: nonce.amountBaseUnits,
      nonceCreatedAt: nonce.createdAt,
    });
    if (failed !== null) throw new UnprocessableError('payment_invalid', `check ${failed.check} failed: ${failed.detail}`);
    let change;
    try {
      change = await this.repo.completePayment(
        {
          nonce: nonce.nonce,
          ownerPubkey: owner,
          txSig: request.txSig,
          slot: tx.slot,
          blockTime: tx.blockTime === null ? null : new Date(tx.blockTime * 1000),
          signed,
          signatureHash,
        },
        this.now(),
      );
    } catch (error) {
      // A concurrent redemption committed first: a signed one still gets its key.
      if (signatureHash !== null && error instanceof ConflictError && error.code === 'nonce_consumed') return this.reclaim(nonce.nonce, owner, request.txSig, signatureHash);
      throw error;
    }
    this.logger.info('subscription paid', { subscriberId: change.issued.subscriberId, plan: nonce.plan, paidUntil: change.issued.paidUntil, signed });
    await this.afterIssue(change.issued);
    // The facts are in the outbox: publishing them must not turn a committed payment into
    // an error reply (the relay publishes whatever this pass could not).
    this.after.facts(change.facts).catch((error: unknown) => this.logger.warn('facts left to the relay', { err: error }));
    return reply(change.issued);
  }

  private async reclaim(nonce: string, owner: string, txSig: string, signatureHash: Buffer): Promise<IssuedKeyReply> {
    const issued = await this.repo.reclaimPayment({ nonce, ownerPubkey: owner, txSig, windowMs: this.settings.reclaimWindowMs, signatureHash }, this.now());
    this.logger.warn('signed redemption of a consumed payment: previous key revoked, new key issued', { subscriberId: issued.subscriberId });
    await this.afterIssue(issued);
    return reply(issued);
  }

  async startReissue(request: ReissueStartRequest): Promise<ReissueStart> {
    const owner = walletKey(request.ownerPubkey, '/ownerPubkey');
    if ((await this.repo.subscriberOf(owner)) === null) {
      throw new NotFoundError('subscription_not_found', `${owner} has no subscription`);
    }
    const now = this.now();
    const nonce = this.newNonce('rei');
    const expiresAt = new Date(now.getTime() + this.settings.reissueNonceTtlMs);
    const message = reissueMessage({ domain: this.settings.publicOrigin, ownerPubkey: owner, nonce, expiresAt: expiresAt.toISOString() });
    await this.repo.createReissueNonce({ nonce, ownerPubkey: owner, message, createdAt: now, expiresAt });
    return { nonce, message, expiresAt: expiresAt.toISOString() };
  }

  async completeReissue(request: ReissueCompleteRequest): Promise<IssuedKeyReply> {
    const owner = walletKey(request.ownerPubkey, '/ownerPubkey');
    const nonce = REISSUE_NONCE_RE.test(request.nonce) ? await this.repo.findReissueNonce(request.nonce) : null;
    if (nonce === null || nonce.ownerPubkey !== owner) {
      throw new NotFoundError('nonce_not_found', `no reissue nonce ${request.nonce} was issued to ${owner}`);
    }
    if (nonce.consumed) throw new ConflictError('nonce_consumed', 'this reissue nonce has already been used');
    if (nonce.expiresAt.getTime() <= this.now().getTime()) {
      throw new GoneError('nonce_expired', `the reissue nonce expired at ${nonce.expiresAt.toISOString()}; start again with POST /reissue`);
    }
    if (!isValidSignature(nonce.message, request.signatureBase64, owner)) {
      throw new UnprocessableError('signature_invalid', 'the signature is not an ed25519 signature of the message by ownerPubkey');
    }
    const issued = await this.repo.completeReissue(nonce.nonce, owner, this.now());
    this.logger.info('api key reissued', { subscriberId: issued.subscriberId });
    await this.afterIssue(issued);
    return reply(issued);
  }

  /** Revokes one key by hash (key-sharing policy `revoke`), on every gateway at once. */
  async revokeKey(keyHash: Buffer, reason: string): Promise<boolean> {
    const now = this.now();
    const revoked = await this.repo.revokeKeyHash(keyHash, reason, now);
    if (revoked) await this.after.revoked(keyHash, now);
    return revoked;
  }

  /**
   * Sign-out: ends the subscriber's dashboard sessions signed in at `epoch` or before,
   * durably (the raised epoch is in PostgreSQL before the reply), then tells every gateway.
   */
  async endSessions(request: SessionEndRequest): Promise<SessionEndReply> {
    const epoch = await this.repo.endSessions(request.subscriberId, request.epoch);
    if (epoch === null) throw new NotFoundError('unknown_subscriber', 'no subscriber has this id');
    this.after.sessionsEnded(request.subscriberId, epoch, this.now());
    return { subscriberId: request.subscriberId, epoch };
  }

  /** Announces ended subscriptions and tier crossings (the lifecycle scheduler's tick). */
  async announceExpiries(): Promise<number> {
    const facts = await this.repo.expireDue(this.now());
    await this.after.facts(facts);
    return facts.length;
  }

  private async afterIssue(issued: IssuedKey): Promise<void> {
    // Before the reply: the replaced key stops working on every replica at once.
    if (issued.revokedKeyHash !== null) await this.after.revoked(issued.revokedKeyHash, this.now());
  }
}

function reply(issued: IssuedKey): IssuedKeyReply {
  return { apiKey: issued.apiKey, subscriberId: issued.subscriberId, paidUntil: issued.paidUntil.toISOString() };
}

/** A wallet public key: base58 of exactly 32 bytes (on the curve or not). */
function walletKey(value: string, path: string): string {
  let bytes: Uint8Array | null = null;
  try {
    bytes = bs58.decode(value);
  } catch {
    bytes = null;
  }
  if (bytes?.length !== 32) {
    throw new InputError(`${value} is not a base58 public key of 32 bytes`, { errors: [{ path, message: 'must be a base58 32-byte public key' }] });
  }
  return value;
}
