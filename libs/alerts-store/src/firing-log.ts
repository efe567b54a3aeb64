import type { Pool } from '@gridlab/db';

/** A stored firing as its owner reads it: what a `standard` webhook posts, with its ids. */
export interface StoredFiring {
  readonly id: number;
  readonly ruleId: string;
  readonly owner: string;
  readonly webhookId: string;
  readonly payload: unknown;
  readonly firedAt: Date;
}

export interface FiringRow {
  id: string;
  rule_id: string;
  owner: string;
  webhook_id: string;
  payload: unknown;
  fired_at: Date;
}

/** Columns of a StoredFiring, as `toStoredFiring` reads them. */
export const STORED_FIRING_COLUMNS = 'id, rule_id, owner, webhook_id, payload, fired_at';

export function toStoredFiring(r: FiringRow): StoredFiring {
  return { id: Number(r.id), ruleId: r.rule_id, owner: r.owner, webhookId: r.webhook_id, payload: r.payload, firedAt: r.fired_at };
}

/**
 * An owner's firings in id order, as the alert stream replays them (the gateway reads them
 * with a SELECT grant only). Test pings are logged as firings for the delivery log, and are
 * no part of the stream.
 */
export class FiringLog {
  constructor(private readonly pool: Pool) {}

  /** The owner's firings with ids above `after`, oldest first, at most `limit`. */
  async after(owner: string, after: number, limit: number): Promise<StoredFiring[]> {
    const { rows } = await this.pool.query<FiringRow>(
      `SELECT ${STORED_FIRING_COLUMNS} FROM alerts.firings
       WHERE owner = $1 AND id > $2 AND payload->>'type' <> 'alert.test' ORDER BY id LIMIT $3`,
      [owner, after, limit],
    );
    return rows.map(toStoredFiring);
  }
}
