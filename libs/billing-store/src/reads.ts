import type { Pool, PoolClient } from '@gridlab/db';

/**
 * What other services may read of billing's tables, and only through here (data
 * ownership: the SQL that names the `billing` schema lives in this package). Read only.
 */
export const billingReads = {
  /** The wallet key of a subscriber, or null. */
  async ownerOf(db: Pool | PoolClient, subscriberId: string): Promise<string | null> {
    const { rows } = await db.query<{ owner_pubkey: string }>('SELECT owner_pubkey FROM billing.subscribers WHERE id = $1', [subscriberId]);
    return rows[0]?.owner_pubkey ?? null;
  },

  /**
   * A boolean SQL condition, for another store's statement to embed (so its update stays
   * one atomic statement): the wallet in column expression `owner` has a subscription paid
   * beyond `at` (a parameter reference such as `$2`). Both arguments are the caller's
   * SQL, never user input.
   */
  activeSubscriptionSql(owner: string, at: string): string {
    return `EXISTS (SELECT 1 FROM billing.subscribers b WHERE b.owner_pubkey = ${owner} AND b.paid_until > ${at})`;
  },
} as const;
