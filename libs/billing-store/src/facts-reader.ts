import type { SubscriptionFact, TierFact } from '@gridlab/contracts';
import type { Pool } from '@gridlab/db';

export type StoredFact =
  | { readonly seq: number; readonly kind: 'subscription'; readonly fact: SubscriptionFact }
  | { readonly seq: number; readonly kind: 'tier'; readonly fact: TierFact };

const UNDEFINED_TABLE = '42P01';

/**
 * Billing's facts as billing committed them (its outbox table), for other services: the
 * source of truth behind the `billing.*.changed` messages, read after `seq` in order.
 * Read only: the one way another service reads `billing.facts` (event-log fills gaps
 * in the BILLING stream from it).
 */
export class BillingFactsSource {
  constructor(private readonly pool: Pool) {}

  async after(seq: number, limit: number): Promise<StoredFact[]> {
    try {
      const { rows } = await this.pool.query<{ seq: string; kind: 'subscription' | 'tier'; payload: SubscriptionFact & TierFact }>(
        'SELECT seq, kind, payload FROM billing.facts WHERE seq > $1 ORDER BY seq LIMIT $2',
        [seq, limit],
      );
      return rows.map((r) => ({ seq: Number(r.seq), kind: r.kind, fact: r.payload }));
    } catch (error) {
      // Billing has not migrated its schema yet: no facts so far.
      if ((error as { code?: string }).code === UNDEFINED_TABLE) return [];
      throw error;
    }
  }
}
