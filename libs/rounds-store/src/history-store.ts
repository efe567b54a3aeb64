import type { Round } from '@gridlab/contracts';
import type { Pool } from '@gridlab/db';
import { RoundRepository } from './round.repository';

/** Why a round could not be rebuilt from its transactions (see rebuildRound's refusals). */
export interface UnrecoverableRound {
  readonly id: number;
  readonly reason: string;
  readonly detail: string;
}

/** A refused round as stored: why, how many times, and when a fill tries it again. */
export interface RefusedRoundRecord extends UnrecoverableRound {
  readonly attempts: number;
  readonly nextAttemptAt: Date;
  /** When it was last refused. */
  readonly at: Date;
}

/** The first retry of a refused round comes this long after its refusal; each refusal doubles the wait. */
const REFUSED_RETRY_FIRST_MS = 5 * 60_000;
/** The longest wait between two tries of a refused round. */
const REFUSED_RETRY_MAX_MS = 24 * 3_600_000;

/** What readers in id order need to know of a missing round id. */
export type MissingState =
  /** The indexer is filling it: wait. */
  | 'pending'
  /**
   * It was refused (never existed, or its transactions did not add up): pass over it. The
   * indexer tries it again later and may still store it; readers that passed over it do
   * not come back to it.
   */
  | 'unrecoverable'
  /** Below the indexer's history floor, or no floor is set: nobody fills it. */
  | 'unfilled';

/**
 * How far the indexer rebuilds history from transactions, and the rounds it could not
 * rebuild yet, each tried again with back-off (history and unrecoverable_rounds). Written by the indexer (and the operator's
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
   * Ids in [fromId, toId], ascending, not stored and not refused with a retry still to
   * come (a refused round whose retry is due is missing again), at most `limit`: what a
   * history fill has to do at `now`.
   */
  async missingIds(fromId: number, toId: number, limit: number, now: Date = new Date()): Promise<number[]> {
    if (toId < fromId) return [];
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT g.id FROM generate_series($1::bigint, $2::bigint) AS g(id)
        WHERE NOT EXISTS (SELECT 1 FROM indexer.rounds r WHERE r.id = g.id)
          AND NOT EXISTS (SELECT 1 FROM indexer.unrecoverable_rounds u WHERE u.id = g.id AND u.next_attempt_at > $4)
        ORDER BY g.id LIMIT $3`,
      [fromId, toId, limit, now],
    );
    return rows.map((r) => Number(r.id));
  }

  /** How many ids in [fromId, toId] are missing at `now` (see missingIds). */
  async missingCount(fromId: number, toId: number, now: Date = new Date()): Promise<number> {
    if (toId < fromId) return 0;
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT ($2::bigint - $1::bigint + 1)
              - (SELECT count(*) FROM indexer.rounds WHERE id BETWEEN $1 AND $2)
              - (SELECT count(*) FROM indexer.unrecoverable_rounds WHERE id BETWEEN $1 AND $2 AND next_attempt_at > $3) AS n`,
      [fromId, toId, now],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Records refusals: a round refused again counts one more attempt, and its next try
   * waits twice as long as the last (refusedRetryDelayMs), never final.
   */
  async markRefused(rounds: readonly UnrecoverableRound[], now: Date = new Date()): Promise<void> {
    if (rounds.length === 0) return;
    await this.pool.query(
      `INSERT INTO indexer.unrecoverable_rounds (id, reason, detail, at, attempts, next_attempt_at)
       SELECT id, reason, detail, $4::timestamptz, 1, $4::timestamptz + $5::float8 * interval '1 millisecond'
         FROM unnest($1::bigint[], $2::text[], $3::text[]) AS t(id, reason, detail)
       ON CONFLICT (id) DO UPDATE SET reason = excluded.reason, detail = excluded.detail, at = $4::timestamptz,
         attempts = indexer.unrecoverable_rounds.attempts + 1,
         next_attempt_at = $4::timestamptz
           + least($6::float8, $5::float8 * power(2, least(indexer.unrecoverable_rounds.attempts, 30))) * interval '1 millisecond'`,
      [rounds.map((r) => r.id), rounds.map((r) => r.reason), rounds.map((r) => r.detail), now, REFUSED_RETRY_FIRST_MS, REFUSED_RETRY_MAX_MS],
    );
  }

  /** Forgets the refusals of rounds now stored. */
  async clearRefused(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query('DELETE FROM indexer.unrecoverable_rounds WHERE id = ANY($1::bigint[])', [ids]);
  }

  /** Which of `ids` were refused before (a fill taking them again is a retry). */
  async refusedAmong(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string }>('SELECT id FROM indexer.unrecoverable_rounds WHERE id = ANY($1::bigint[]) ORDER BY id', [ids]);
    return rows.map((r) => Number(r.id));
  }

  /** Every refused round, in id order (or only round `id`). */
  async refused(id?: number): Promise<RefusedRoundRecord[]> {
    const { rows } = await this.pool.query<{ id: string; reason: string; detail: string; attempts: number; next_attempt_at: Date; at: Date }>(
      `SELECT id, reason, detail, attempts, next_attempt_at, at FROM indexer.unrecoverable_rounds
        WHERE $1::bigint IS NULL OR id = $1 ORDER BY id`,
      [id ?? null],
    );
    return rows.map((r) => ({ id: Number(r.id), reason: r.reason, detail: r.detail, attempts: r.attempts, nextAttemptAt: r.next_attempt_at, at: r.at }));
  }

  /** Makes refused rounds (all, or only `id`) due at `now`; returns their ids. */
  async retryRefusedNow(id?: number, now: Date = new Date()): Promise<number[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `UPDATE indexer.unrecoverable_rounds SET next_attempt_at = $2 WHERE $1::bigint IS NULL OR id = $1 RETURNING id`,
      [id ?? null, now],
    );
    return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  }

  /** Refused rounds (waiting for a retry) by reason, and the latest few. */
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
    insert: async (batch: readonly Round[]) => {
      const inserted = await rounds.insertMany(batch);
      await history.clearRefused(batch.map((r) => r.id));
      return inserted;
    },
    markRefused: (refused: readonly UnrecoverableRound[]) => history.markRefused(refused),
    refusedAmong: (ids: readonly number[]) => history.refusedAmong(ids),
    refused: (id?: number) => history.refused(id),
    retryRefusedNow: (id?: number) => history.retryRefusedNow(id),
    ruleBefore: (id: number) => rounds.ruleBefore(id),
    setFloor: (floor: number | null) => history.setFloor(floor),
    unrecoverable: (latest?: number) => history.unrecoverable(latest),
  };
}
