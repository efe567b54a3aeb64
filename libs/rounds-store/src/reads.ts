import type { Pool, PoolClient } from '@gridlab/db';

/**
 * What other services may read of the indexer's tables beyond RoundRepository, and only
 * through here (data ownership: the SQL that names the `indexer` schema lives in this
 * package). Read only.
 */
export const roundReads = {
  /** The newest stored round id, or null when none is stored (reads the rounds themselves, in the caller's transaction). */
  async latestStoredId(db: Pool | PoolClient): Promise<number | null> {
    const { rows } = await db.query<{ last_id: number | null }>('SELECT max(id) AS last_id FROM indexer.rounds');
    return rows[0]?.last_id ?? null;
  },

  /** A scalar SQL subquery for another store's statement to embed: the newest stored round id, 0 when none. */
  latestStoredIdSql: '(SELECT coalesce(max(id), 0) FROM indexer.rounds)',
} as const;
