import { KeyStore, type IssuedKey } from '@gridlab/billing-store';
import type { Plan, SubscriptionFact, TierFact } from '@gridlab/contracts';
import { withTransaction, type Pool, type PoolClient } from '@gridlab/db';
import { ConflictError, GoneError } from '@gridlab/errors';
import type { BillingStore, KeyChange, OutboxFact, PaymentNonce, Reclaim, ReissueNonce, VerifiedPayment } from '../app/ports';
import { planMonths, priceSheet, tierIndex, type PriceLadder } from '../domain/pricing';
import { signatureRequired } from '../domain/subscribe-signature';

const UNIQUE_VIOLATION = '23505';

/**
 * Billing's PostgreSQL adapter: nonces, payments, the facts outbox and the announced
 * tier, next to the key store. Every change that issues a key or changes the active
 * count happens in one transaction together with its facts.
 */
export class BillingRepository implements BillingStore {
  constructor(
    private readonly pool: Pool,
    private readonly keys: KeyStore,
    private readonly ladder: PriceLadder,
  ) {}

  async activeCount(now: Date): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM billing.subscribers WHERE paid_until > $1`, [now]);
    return rows[0]!.n;
  }

  /** The subscriber with this id if its subscription is active (a valid referral code). */
  async activeSubscriber(subscriberId: string, now: Date): Promise<{ ownerPubkey: string } | null> {
    const { rows } = await this.pool.query<{ owner_pubkey: string }>(
      `SELECT owner_pubkey FROM billing.subscribers WHERE id = $1 AND paid_until > $2`,
      [subscriberId, now],
    );
    return rows[0] === undefined ? null : { ownerPubkey: rows[0].owner_pubkey };
  }

  async subscriberOf(ownerPubkey: string): Promise<{ id: string } | null> {
    const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM billing.subscribers WHERE owner_pubkey = $1`, [ownerPubkey]);
    return rows[0] ?? null;
  }

  async hasActiveKey(ownerPubkey: string, now: Date): Promise<boolean> {
    return hasActiveKey(this.pool, ownerPubkey, now);
  }

  async createPaymentNonce(n: Omit<PaymentNonce, 'consumed'> & { readonly referralId: string | null }): Promise<void> {
    await this.pool.query(
      `INSERT INTO billing.payment_nonces (nonce, owner_pubkey, plan, referral_id, amount_base_units, created_at, expires_at, require_signature)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [n.nonce, n.ownerPubkey, n.plan, n.referralId, n.amountBaseUnits.toString(), n.createdAt, n.expiresAt, n.requireSignature],
    );
  }

  async findPaymentNonce(nonce: string): Promise<PaymentNonce | null> {
    const { rows } = await this.pool.query<{
      owner_pubkey: string;
      plan: Plan;
      amount_base_units: string;
      created_at: Date;
      expires_at: Date;
      consumed_at: Date | null;
      require_signature: boolean;
    }>(
      `SELECT owner_pubkey, plan, amount_base_units::text, created_at, expires_at, consumed_at, require_signature FROM billing.payment_nonces WHERE nonce = $1`,
      [nonce],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      nonce,
      ownerPubkey: row.owner_pubkey,
      plan: row.plan,
      amountBaseUnits: BigInt(row.amount_base_units),
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      consumed: row.consumed_at !== null,
      requireSignature: row.require_signature,
    };
  }

  async txSigUsed(txSig: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(`SELECT 1 FROM billing.payments WHERE tx_sig = $1`, [txSig]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Records a verified payment in one transaction: the nonce is consumed, the payment
   * stored (its signature unique), the subscription created or extended, a new key issued
   * (revoking the previous one) and the facts written. The nonce row lock makes
   * concurrent completions of one nonce wait; the loser sees it consumed. An owner lock
   * serializes redemptions of one owner's nonces, so an unsigned one never replaces a
   * working key, not even one a concurrent redemption is issuing.
   */
  async completePayment(payment: VerifiedPayment, now: Date): Promise<KeyChange> {
    return withTransaction(this.pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('billing.owner:' || $1, 0))`, [payment.ownerPubkey]);
      const { rows } = await client.query<{ plan: Plan; amount_base_units: string; consumed_at: Date | null; require_signature: boolean }>(
        `SELECT plan, amount_base_units::text, consumed_at, require_signature FROM billing.payment_nonces WHERE nonce = $1 FOR UPDATE`,
        [payment.nonce],
      );
      const nonce = rows[0];
      if (nonce === undefined) throw new Error(`payment nonce ${payment.nonce} vanished`);
      if (nonce.consumed_at !== null) throw new ConflictError('nonce_consumed', 'this payment nonce has already been used');
      if (!payment.signed && (nonce.require_signature || (await hasActiveKey(client, payment.ownerPubkey, now)))) {
        throw signatureRequired(nonce.require_signature);
      }
      const previous = await client.query<{ paid_until: Date }>(
        `SELECT paid_until FROM billing.subscribers WHERE owner_pubkey = $1 FOR UPDATE`,
        [payment.ownerPubkey],
      );
      const subscriberId = await this.keys.extend(client, payment.ownerPubkey, nonce.plan, { months: planMonths(nonce.plan) }, now);
      try {
        await client.query(
          `INSERT INTO billing.payments (tx_sig, nonce, subscriber_id, plan, amount_base_units, block_time, slot, recorded_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [payment.txSig, payment.nonce, subscriberId, nonce.plan, nonce.amount_base_units, payment.blockTime, payment.slot, now],
        );
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
          throw new ConflictError('tx_already_used', 'this transaction has already paid for a subscription');
        }
        throw error;
      }
      await client.query(
        `UPDATE billing.payment_nonces SET consumed_at = $2, consumed_tx_sig = $3, consumed_signed = $4, redeemed_signature_hash = $5 WHERE nonce = $1`,
        [payment.nonce, now, payment.txSig, payment.signed, payment.signatureHash],
      );
      const issued = await this.keys.issue(client, subscriberId, 'payment', now);
      const before = previous.rows[0]?.paid_until;
      const action = before !== undefined && before > now ? 'renewed' : 'activated';
      const facts = await this.recordFacts(client, now, {
        factId: `payment:${payment.txSig}`,
        action,
        plan: nonce.plan,
        subscriberId,
        paidUntil: issued.paidUntil.toISOString(),
      });
      return { issued, facts };
    });
  }

  /**
   * A signed redemption of a consumed payment nonce: the payment is not recorded again;
   * the subscriber's active key (the one that redemption issued, or a front-runner's) is
   * revoked and a new one issued, under the nonce's row lock so concurrent retries
   * serialize. Only for the transaction that consumed the nonce, within the window, once
   * (the reclaim closes the window, as does a later /reissue), and with a signature the
   * nonce has not seen: the signed body that redeemed it, replayed by whoever saw it, is
   * refused (409 signature_used).
   */
  async reclaimPayment(r: Reclaim, now: Date): Promise<IssuedKey> {
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{
        consumed_at: Date | null;
        consumed_tx_sig: string | null;
        owner_pubkey: string;
        reclaim_closed_by: 'reclaim' | 'reissue' | null;
        reclaim_closed_at: Date | null;
        redeemed_signature_hash: Buffer | null;
      }>(
        `SELECT consumed_at, consumed_tx_sig, owner_pubkey, reclaim_closed_by, reclaim_closed_at, redeemed_signature_hash
           FROM billing.payment_nonces WHERE nonce = $1 FOR UPDATE`,
        [r.nonce],
      );
      const nonce = rows[0];
      if (nonce === undefined || nonce.consumed_at === null || nonce.owner_pubkey !== r.ownerPubkey) {
        throw new Error(`payment nonce ${r.nonce} is not a consumed nonce of this owner`);
      }
      if (nonce.consumed_tx_sig !== r.txSig) {
        throw new ConflictError('nonce_consumed', 'this payment nonce has already been redeemed with another transaction');
      }
      if (nonce.consumed_at.getTime() + r.windowMs <= now.getTime()) {
        throw new GoneError(
          'reclaim_expired',
          `a signed retry could take this key back until ${new Date(nonce.consumed_at.getTime() + r.windowMs).toISOString()}; use the signed /reissue flow`,
        );
      }
      if (nonce.redeemed_signature_hash !== null && nonce.redeemed_signature_hash.equals(r.signatureHash)) {
        throw new ConflictError(
          'signature_used',
          'this signature has already redeemed this payment: taking the key back needs a new one (sign the message again with a new expires)',
        );
      }
      if (nonce.reclaim_closed_by === 'reclaim') {
        throw new ConflictError('reclaim_used', 'the key of this payment has already been taken back once; use the signed /reissue flow');
      }
      if (nonce.reclaim_closed_by === 'reissue') {
        throw new GoneError(
          'reclaim_expired',
          `the key was reissued at ${nonce.reclaim_closed_at!.toISOString()}, which ended this payment's reclaim window; use the signed /reissue flow`,
        );
      }
      await client.query(
        `UPDATE billing.payment_nonces SET consumed_signed = true, reclaim_closed_at = $2, reclaim_closed_by = 'reclaim', redeemed_signature_hash = $3 WHERE nonce = $1`,
        [r.nonce, now, r.signatureHash],
      );
      const subscriber = await client.query<{ id: string }>(`SELECT id FROM billing.subscribers WHERE owner_pubkey = $1`, [r.ownerPubkey]);
      const id = subscriber.rows[0]?.id;
      if (id === undefined) throw new Error(`subscriber of ${r.ownerPubkey} vanished`);
      return this.keys.issue(client, id, 'payment', now);
    });
  }

  async createReissueNonce(n: Omit<ReissueNonce, 'consumed'> & { readonly createdAt: Date }): Promise<void> {
    await this.pool.query(
      `INSERT INTO billing.reissue_nonces (nonce, owner_pubkey, message, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      [n.nonce, n.ownerPubkey, n.message, n.createdAt, n.expiresAt],
    );
  }

  async findReissueNonce(nonce: string): Promise<ReissueNonce | null> {
    const { rows } = await this.pool.query<{ owner_pubkey: string; message: string; expires_at: Date; consumed_at: Date | null }>(
      `SELECT owner_pubkey, message, expires_at, consumed_at FROM billing.reissue_nonces WHERE nonce = $1`,
      [nonce],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return { nonce, ownerPubkey: row.owner_pubkey, message: row.message, expiresAt: row.expires_at, consumed: row.consumed_at !== null };
  }

  /** Consumes the reissue nonce (once, under its row lock) and issues a new key, revoking the old one. */
  async completeReissue(nonce: string, ownerPubkey: string, now: Date): Promise<IssuedKey> {
    return withTransaction(this.pool, async (client) => {
      const consumed = await client.query(
        `UPDATE billing.reissue_nonces SET consumed_at = $2 WHERE nonce = $1 AND consumed_at IS NULL RETURNING nonce`,
        [nonce, now],
      );
      if ((consumed.rowCount ?? 0) === 0) throw new ConflictError('nonce_consumed', 'this reissue nonce has already been used');
      // The owner has proved the wallet: earlier payments can no longer take the key back.
      await client.query(
        `UPDATE billing.payment_nonces SET reclaim_closed_at = $2, reclaim_closed_by = 'reissue'
          WHERE owner_pubkey = $1 AND consumed_at IS NOT NULL AND reclaim_closed_at IS NULL`,
        [ownerPubkey, now],
      );
      const { rows } = await client.query<{ id: string }>(`SELECT id FROM billing.subscribers WHERE owner_pubkey = $1`, [ownerPubkey]);
      const subscriber = rows[0];
      if (subscriber === undefined) throw new Error(`subscriber of ${ownerPubkey} vanished`);
      return this.keys.issue(client, subscriber.id, 'reissue', now);
    });
  }

  async revokeKeyHash(keyHash: Buffer, reason: string, now: Date): Promise<boolean> {
    return this.keys.revokeHash(keyHash, reason, now);
  }

  /**
   * Raises the subscriber's session epoch past `epoch` (sessions signed in at `epoch` or
   * before are over) and returns it; a session already below the epoch changes nothing.
   * Null for an unknown subscriber.
   */
  async endSessions(subscriberId: string, epoch: number): Promise<number | null> {
    const { rows } = await this.pool.query<{ session_epoch: number }>(
      `UPDATE billing.subscribers SET session_epoch = GREATEST(session_epoch, $2::int + 1) WHERE id = $1 RETURNING session_epoch`,
      [subscriberId, epoch],
    );
    return rows[0]?.session_epoch ?? null;
  }

  /**
   * Announces subscriptions whose paid period has ended (one `expired` fact per
   * subscriber and paid period) and any tier crossing; returns the facts to publish.
   */
  async expireDue(now: Date, limit = 500): Promise<OutboxFact[]> {
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ id: string; plan: string; paid_until: Date }>(
        `UPDATE billing.subscribers SET expiry_announced_for = paid_until
          WHERE id IN (SELECT id FROM billing.subscribers
                        WHERE paid_until <= $1 AND expiry_announced_for IS DISTINCT FROM paid_until
                        ORDER BY paid_until LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING id, plan, paid_until`,
        [now, limit],
      );
      const facts: OutboxFact[] = [];
      for (const row of rows) {
        facts.push(
          ...(await this.recordFacts(client, now, {
            factId: `expired:${row.id}:${row.paid_until.toISOString()}`,
            action: 'expired',
            plan: row.plan as SubscriptionFact['plan'],
            subscriberId: row.id,
            paidUntil: row.paid_until.toISOString(),
          })),
        );
      }
      if (rows.length === 0) facts.push(...(await this.recordFacts(client, now, null)));
      return facts;
    });
  }

  /** Revocations whose tombstone or announcement has not landed yet, oldest first. */
  async pendingRevocations(limit: number): Promise<{ keyHash: Buffer; revokedAt: Date }[]> {
    const { rows } = await this.pool.query<{ key_hash: Buffer; revoked_at: Date }>(
      `SELECT key_hash, revoked_at FROM billing.revocations WHERE delivered_at IS NULL ORDER BY revoked_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ keyHash: r.key_hash, revokedAt: r.revoked_at }));
  }

  async markRevocationDelivered(keyHash: Buffer, now: Date): Promise<void> {
    await this.pool.query(`UPDATE billing.revocations SET delivered_at = $2 WHERE key_hash = $1 AND delivered_at IS NULL`, [keyHash, now]);
  }

  /** Deletes payment and reissue nonces that expired unused, and used sign-in nonces, more than `graceMs` ago. */
  async deleteExpiredNonces(now: Date, graceMs: number): Promise<number> {
    const before = new Date(now.getTime() - graceMs);
    const payments = await this.pool.query(`DELETE FROM billing.payment_nonces WHERE consumed_at IS NULL AND expires_at < $1`, [before]);
    const reissues = await this.pool.query(`DELETE FROM billing.reissue_nonces WHERE expires_at < $1`, [before]);
    // The gateway's used sign-in nonces: an expired message is refused before they are looked at.
    const signIns = await this.pool.query(`DELETE FROM billing.siws_used_nonces WHERE expires_at < $1`, [before]);
    return (payments.rowCount ?? 0) + (reissues.rowCount ?? 0) + (signIns.rowCount ?? 0);
  }

  /** Outbox facts not yet confirmed published, oldest first. */
  async unpublishedFacts(limit: number): Promise<OutboxFact[]> {
    const { rows } = await this.pool.query<{ seq: string; kind: 'subscription' | 'tier'; payload: SubscriptionFact & TierFact }>(
      `SELECT seq, kind, payload FROM billing.facts WHERE published_at IS NULL ORDER BY seq LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind, payload: r.payload }));
  }

  async markPublished(seqs: readonly number[], now: Date): Promise<void> {
    if (seqs.length === 0) return;
    await this.pool.query(`UPDATE billing.facts SET published_at = $2 WHERE seq = ANY($1::bigint[]) AND published_at IS NULL`, [seqs, now]);
  }

  /**
   * Writes a subscription fact (when given) and, when the active count has crossed a
   * threshold since the last announcement, a tier fact. The tier row lock serializes
   * announcements, so each crossing is announced once and in order.
   */
  private async recordFacts(
    client: PoolClient,
    now: Date,
    change: Omit<SubscriptionFact, 'activeSubs' | 'ts'> | null,
  ): Promise<OutboxFact[]> {
    const state = await client.query<{ active_subs: number; version: string }>(
      `SELECT active_subs, version FROM billing.tier_state FOR UPDATE`,
    );
    const announced = state.rows[0]!;
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM billing.subscribers WHERE paid_until > $1`, [now]);
    const activeSubs = rows[0]!.n;
    const ts = now.toISOString();
    const facts: OutboxFact[] = [];
    if (change !== null) {
      facts.push(await this.insertFact(client, 'subscription', { ...change, activeSubs, ts }));
    }
    const before = tierIndex(this.ladder, announced.active_subs);
    const after = tierIndex(this.ladder, activeSubs);
    const version = Number(announced.version) + (before === after ? 0 : 1);
    if (before !== after) {
      const tier: TierFact = {
        factId: `tier:${version}`,
        activeSubs,
        tokenNow: priceSheet(this.ladder, activeSubs).tokenNow,
        direction: after > before ? 'up' : 'down',
        ts,
      };
      facts.push(await this.insertFact(client, 'tier', tier));
    }
    if (activeSubs !== announced.active_subs || version !== Number(announced.version)) {
      await client.query(`UPDATE billing.tier_state SET active_subs = $1, version = $2`, [activeSubs, version]);
    }
    return facts;
  }

  private async insertFact(client: PoolClient, kind: 'subscription' | 'tier', payload: SubscriptionFact | TierFact): Promise<OutboxFact> {
    const { rows } = await client.query<{ seq: string }>(
      `INSERT INTO billing.facts (fact_id, kind, payload, created_at) VALUES ($1, $2, $3, $4) RETURNING seq`,
      [payload.factId, kind, JSON.stringify(payload), payload.ts],
    );
    return { seq: Number(rows[0]!.seq), kind, payload } as OutboxFact;
  }
}

/** Whether the owner holds a working key: not revoked, its paid period not ended. */
async function hasActiveKey(db: Pool | PoolClient, ownerPubkey: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM billing.subscribers s JOIN billing.api_keys k ON k.subscriber_id = s.id
      WHERE s.owner_pubkey = $1 AND s.paid_until > $2 AND k.revoked_at IS NULL`,
    [ownerPubkey, now],
  );
  return (rowCount ?? 0) > 0;
}

