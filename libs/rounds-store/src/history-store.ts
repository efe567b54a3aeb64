import type { Round } from '@gridlab/contracts';
import type { Pool } from '@gridlab/db';
import { RoundRepository } from './round.repository';

/** Why a round could not be rebuilt from its transactions (see rebuildRound's refusals). */
export interface UnrecoverableRound {
  readonly id: number;
  readonly reason: string;
  readonly detail: string;
}

/** What readers in id order need to know of a missing round id. */
export type MissingState =
  /** The indexer is filling it: wait. */
  | 'pending'
  /** It will never be stored (never existed, or its transactions do not add up): pass over it. */
  | 'unrecoverable'
  /** Below the indexer's history floor, or no floor is set: nobody fills it. */
  | 'unfilled';

/**
 * How far the indexer rebuilds history from transactions, and the rounds it could not
 * rebuild (history and unrecoverable_rounds). Written by the indexer (and the operator's
 * `gridlab backfill`); read by the event log to tell a round still being filled from one
 * that never will be.
 */
export class HistoryStore {
  constructor(private readonly pool: Pool) {}

  /** The lowest round id the indexer rebuilds down to, or null when it rebuilds none. */
  async floor(): Promise<number | null> {
    const { rows } = await this.pool.query<{ floor_id: string | null }>('SELECT floor_id FROM indexer.history WHERE id = 1');
    const floor = rows[0]?.floor_id;
    return floor === null || floor === undefined ? null : Number(floor);
  }

  async setFloor(floor: number | null): Promise<void> {
    await this.pool.query('UPDATE indexer.history SET floor_id = $1 WHERE id = 1', [floor]);
  }

  /**
   * Ids in [fromId, toId], ascending, neither stored nor unrecoverable, at most `limit`:
   * what a history fill still has to do.
   */
  async missingIds(fromId: number, toId: number, limit: number): Promise<number[]> {
    if (toId < fromId) return [];
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT g.id FROM generate_series($1::bigint, $2::bigint) AS g(id)
        WHERE NOT EXISTS (SELECT 1 FROM indexer.rounds r WHERE r.id = g.id)
          AND NOT EXISTS (SELECT 1 FROM indexer.unrecoverable_rounds u WHERE u.id = g.id)
        ORDER BY g.id LIMIT $3`,
      [fromId, toId, limit],
    );
    return rows.map((r) => Number(r.id));
  }

  /** How many ids in [fromId, toId] are neither stored nor unrecoverable. */
  async missingCount(fromId: number, toId: number): Promise<number> {
    if (toId < fromId) return 0;
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT ($2::bigint - $1::bigint + 1)
              - (SELECT count(*) FROM indexer.rounds WHERE id BETWEEN $1 AND $2)
              - (SELECT count(*) FROM indexer.unrecoverable_rounds WHERE id BETWEEN $1 AND $2) AS n`,
      [fromId, toId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async markUnrecoverable(rounds: readonly UnrecoverableRound[]): Promise<void> {
    if (rounds.length === 0) return;
    await this.pool.query(
      `INSERT INTO indexer.unrecoverable_rounds (id, reason, detail)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
       ON CONFLICT (id) DO UPDATE SET reason = excluded.reason, detail = excluded.detail, at = now()`,
      [rounds.map((r) => r.id), rounds.map((r) => r.reason), rounds.map((r) => r.detail)],
    );
  }

  /** Unrecoverable rounds by reason, and the latest few. */
  async unrecoverable(latest = 5): Promise<{ byReason: Record<string, number>; latest: UnrecoverableRound[] }> {
    const [counts, recent] = await Promise.all([
      this.pool.query<{ reason: string; n: string }>('SELECT reason, count(*) AS n FROM indexer.unrecoverable_rounds GROUP BY reason'),
      this.pool.query<{ id: string; reason: string; detail: string }>('SELECT id, reason, detail FROM indexer.unrecoverable_rounds ORDER BY at DESC, id DESC LIMIT $1', [latest]),
    ]);
    return {
      byReason: Object.fromEntries(counts.rows.map((r) => [r.reason, Number(r.n)])),
      latest: recent.rows.map((r) => ({ id: Number(r.id), reason: r.reason, detail: r.detail })),
    };
  }

  /**
   * The lowest id in [fromId, toId] the indexer is still filling (at or above its floor,
   * neither stored nor unrecoverable), or null when it fills none of them.
   */
  async firstPending(fromId: number, toId: number): Promise<number | null> {
    if (toId < fromId) return null;
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT g.id FROM indexer.history h, generate_series(greatest($1::bigint, h.floor_id), $2::bigint) AS g(id)
        WHERE h.id = 1 AND h.floor_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM indexer.rounds r WHERE r.id = g.id)
          AND NOT EXISTS (SELECT 1 FROM indexer.unrecoverable_rounds u WHERE u.id = g.id)
        ORDER BY g.id LIMIT 1`,
      [fromId, toId],
    );
    return rows[0] === undefined ? null : Number(rows[0].id);
  }

  /** Whether the indexer will still store round `id` (it is not stored). */
  async missingState(id: number): Promise<MissingState> {
    const { rows } = await this.pool.query<{ floor_id: string | null; unrecoverable: boolean }>(
      `SELECT floor_id, EXISTS (SELECT 1 FROM indexer.unrecoverable_rounds WHERE id = $1) AS unrecoverable FROM indexer.history WHERE id = 1`,
      [id],
    );
    const row = rows[0];
    if (row === undefined || row.floor_id === null || id < Number(row.floor_id)) return 'unfilled';
    return row.unrecoverable ? 'unrecoverable' : 'pending';
  }
}

/**
 * What a history fill works on (FillStore of @gridlab/history, with the floor and the
 * refusals the indexer reports): missing ids, the floor and refusals in the history
 * tables, rounds stored and their payout rules through the repository.
 */
export function historyFillStore(pool: Pool) {
  const rounds = new RoundRepository(pool);
  const history = new HistoryStore(pool);
  return {
    missingIds: (fromId: number, toId: number, limit: number) => history.missingIds(fromId, toId, limit),
    missingCount: (fromId: number, toId: number) => history.missingCount(fromId, toId),
    insert: (batch: readonly Round[]) => rounds.insertMany(batch),
    markUnrecoverable: (refused: readonly UnrecoverableRound[]) => history.markUnrecoverable(refused),
    ruleBefore: (id: number) => rounds.ruleBefore(id),
    setFloor: (floor: number | null) => history.setFloor(floor),
    unrecoverable: (latest?: number) => history.unrecoverable(latest),
  };
}
