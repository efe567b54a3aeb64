import { withTransaction, type Pool, type PoolClient } from '@gridlab/db';
import { newApiKey, newSubscriberId, type RandomInt } from './ids';
import { hashApiKey } from './key-hash';

/** A paid period in calendar months and days (`make_interval`), added to max(now, paidUntil). */
export interface Period {
  readonly months?: number;
  readonly days?: number;
}

/** An active key's owner and paid period, as the gateway needs it. */
export interface KeyRecord {
  readonly subscriberId: string;
  readonly paidUntil: Date;
}

/** A freshly issued key: the plaintext exists only in this object and its response. */
export interface IssuedKey {
  readonly apiKey: string;
  readonly subscriberId: string;
  readonly paidUntil: Date;
  /** Hash of the key this issue replaced, so callers can invalidate caches at once. */
  readonly revokedKeyHash: Buffer | null;
}

export type IssueReason = 'payment' | 'reissue' | 'admin';

/**
 * Subscribers and API keys in billing's schema. Issuing and revoking run inside the
 * caller's transaction when one is passed, so billing can consume a nonce, record a
 * payment and issue a key atomically.
 */
export class KeyStore {
  constructor(
    private readonly pool: Pool,
    private readonly hmacSecret: string,
    private readonly random?: RandomInt,
  ) {}

  hash(apiKey: string): Buffer {
    return hashApiKey(this.hmacSecret, apiKey);
  }

  /** The active (not revoked) key with this hash, or null. Expiry is the caller's call. */
  async lookup(keyHash: Buffer): Promise<KeyRecord | null> {
    const { rows } = await this.pool.query<{ subscriber_id: string; paid_until: Date }>(
      `SELECT k.subscriber_id, s.paid_until
         FROM billing.api_keys k JOIN billing.subscribers s ON s.id = k.subscriber_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    const row = rows[0];
    return row === undefined ? null : { subscriberId: row.subscriber_id, paidUntil: row.paid_until };
  }

  /**
   * The active (not revoked) key of a wallet's subscription, by its hash (a dashboard
   * session signed in by the wallet acts for it), or null when the wallet has none.
   */
  async activeKeyOf(ownerPubkey: string): Promise<(KeyRecord & { keyHash: Buffer }) | null> {
    const { rows } = await this.pool.query<{ key_hash: Buffer; subscriber_id: string; paid_until: Date }>(
      `SELECT k.key_hash, k.subscriber_id, s.paid_until
         FROM billing.subscribers s JOIN billing.api_keys k ON k.subscriber_id = s.id
        WHERE s.owner_pubkey = $1 AND k.revoked_at IS NULL`,
      [ownerPubkey],
    );
    const row = rows[0];
    return row === undefined ? null : { keyHash: row.key_hash, subscriberId: row.subscriber_id, paidUntil: row.paid_until };
  }

  /**
   * The dashboard session epoch of each subscriber given (sessions signed in below it are
   * over); an unknown subscriber is absent from the map.
   */
  async sessionEpochs(subscriberIds: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ id: string; session_epoch: number }>('SELECT id, session_epoch FROM billing.subscribers WHERE id = ANY($1::text[])', [subscriberIds]);
    return new Map(rows.map((row) => [row.id, row.session_epoch]));
  }

  /**
   * Operator grant: creates the subscriber or extends its period by `days` from
   * max(now, paidUntil), revokes its previous key and issues a new one.
   */
  async grant(ownerPubkey: string, days: number, now: Date): Promise<IssuedKey> {
    return withTransaction(this.pool, async (client) => {
      const subscriberId = await this.extend(client, ownerPubkey, 'grant', { days }, now);
      return this.issue(client, subscriberId, 'admin', now);
    });
  }

  /**
   * Creates or extends the owner's subscription by `period` from max(now, paidUntil)
   * (calendar arithmetic in UTC); returns the subscriber id. `plan` records what was
   * bought last.
   */
  async extend(client: PoolClient, ownerPubkey: string, plan: string, period: Period, now: Date): Promise<string> {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO billing.subscribers (id, owner_pubkey, plan, paid_until)
       VALUES ($1, $2, $3, ($4::timestamptz AT TIME ZONE 'UTC' + make_interval(months => $5, days => $6)) AT TIME ZONE 'UTC')
       ON CONFLICT (owner_pubkey) DO UPDATE
          SET plan = EXCLUDED.plan,
              paid_until = (greatest($4::timestamptz, billing.subscribers.paid_until) AT TIME ZONE 'UTC'
                            + make_interval(months => $5, days => $6)) AT TIME ZONE 'UTC',
              updated_at = $4
       RETURNING id`,
      [newSubscriberId(this.random), ownerPubkey, plan, now, period.months ?? 0, period.days ?? 0],
    );
    return rows[0]!.id;
  }

  /** Revokes the subscriber's active key (if any) and issues a new one. */
  async issue(client: PoolClient, subscriberId: string, reason: IssueReason, now: Date): Promise<IssuedKey> {
    const revoked = await this.revokeActive(client, subscriberId, 'replaced', now);
    const apiKey = newApiKey(this.random);
    await client.query(
      `INSERT INTO billing.api_keys (key_hash, subscriber_id, issued_at, issued_by) VALUES ($1, $2, $3, $4)`,
      [this.hash(apiKey), subscriberId, now, reason],
    );
    const { rows } = await client.query<{ paid_until: Date }>(`SELECT paid_until FROM billing.subscribers WHERE id = $1`, [
      subscriberId,
    ]);
    return { apiKey, subscriberId, paidUntil: rows[0]!.paid_until, revokedKeyHash: revoked };
  }

  /** Revokes the active key of the owner; returns its hash, or null when there was none. */
  async revokeOwner(ownerPubkey: string, reason: string, now: Date): Promise<Buffer | null> {
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ id: string }>(`SELECT id FROM billing.subscribers WHERE owner_pubkey = $1`, [
        ownerPubkey,
      ]);
      const subscriber = rows[0];
      return subscriber === undefined ? null : this.revokeActive(client, subscriber.id, reason, now);
    });
  }

  /** Revokes the key with this hash if active (key-sharing policy `revoke`). */
  async revokeHash(keyHash: Buffer, reason: string, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `WITH revoked AS (
         UPDATE billing.api_keys SET revoked_at = $2, revoked_reason = $3 WHERE key_hash = $1 AND revoked_at IS NULL RETURNING key_hash
       )
       INSERT INTO billing.revocations (key_hash, revoked_at) SELECT key_hash, $2 FROM revoked ON CONFLICT DO NOTHING`,
      [keyHash, now, reason],
    );
    return (result.rowCount ?? 0) > 0;
  }

  private async revokeActive(client: PoolClient, subscriberId: string, reason: string, now: Date): Promise<Buffer | null> {
    const { rows } = await client.query<{ key_hash: Buffer }>(
      `UPDATE billing.api_keys SET revoked_at = $2, revoked_reason = $3
        WHERE subscriber_id = $1 AND revoked_at IS NULL RETURNING key_hash`,
      [subscriberId, now, reason],
    );
    const revoked = rows[0]?.key_hash ?? null;
    // The revocation outbox: billing tombstones and announces it until both land.
    if (revoked !== null) {
      await client.query(`INSERT INTO billing.revocations (key_hash, revoked_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [revoked, now]);
    }
    return revoked;
  }
}
