import type { EventKind } from '@gridlab/contracts';
import type { Pool, PoolClient } from '@gridlab/db';

/** The deriver's state after a round, with how many rounds it had processed by then. */
export interface Checkpoint {
  readonly roundId: number;
  readonly roundCount: number;
  readonly state: unknown;
}

/** A live (not withdrawn) event of the log as the writer reconciles it. */
export interface LiveEvent {
  readonly id: number;
  readonly dedupKey: string;
  readonly kind: EventKind;
  readonly ts: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** What the writer commits of its checkpoints with a batch: drop those above `dropAbove` (rewound past), then save `save`. */
export interface CheckpointChange {
  /** Checkpoints of rounds above this id are stale (null: keep all; -1 drops every one). */
  readonly dropAbove: number | null;
  readonly save: readonly Checkpoint[];
}

/**
 * Live round events (every kind but `withdrawn` that has a roundId) of a round in
 * (after, upTo] (after null: from the first), or with one of `keys`, ascending by id.
 */
export async function liveRoundEvents(pool: Pool, range: { after: number | null; upTo: number }, keys: readonly string[]): Promise<LiveEvent[]> {
  const { rows } = await pool.query<{ id: number; dedup_key: string; kind: EventKind; ts: Date; body: Record<string, unknown> }>(
    `SELECT id, dedup_key, kind, ts, body FROM events.events
      WHERE withdrawn_by IS NULL AND kind <> 'withdrawn' AND round_id IS NOT NULL
        AND ((round_id > $1 AND round_id <= $2) OR dedup_key = ANY($3::text[]))
      ORDER BY id`,
    [range.after ?? -1, range.upTo, keys],
  );
  return rows.map((r) => ({ id: Number(r.id), dedupKey: r.dedup_key, kind: r.kind, ts: r.ts.toISOString(), fields: r.body }));
}

/** Every checkpoint's round id and count, ascending (no states: they are read one at a time). */
export async function checkpointCounts(pool: Pool): Promise<{ roundId: number; roundCount: number }[]> {
  const { rows } = await pool.query<{ round_id: string; round_count: string }>('SELECT round_id, round_count FROM events.checkpoints ORDER BY round_id');
  return rows.map((r) => ({ roundId: Number(r.round_id), roundCount: Number(r.round_count) }));
}

/** The state saved at `roundId`, or undefined when there is no such checkpoint. */
export async function checkpointState(pool: Pool, roundId: number): Promise<unknown> {
  const { rows } = await pool.query<{ state: unknown }>('SELECT state FROM events.checkpoints WHERE round_id = $1', [roundId]);
  return rows[0]?.state;
}

/** Applies `change` inside the writer's transaction. */
export async function saveCheckpoints(client: PoolClient, change: CheckpointChange): Promise<void> {
  if (change.dropAbove !== null) await client.query('DELETE FROM events.checkpoints WHERE round_id > $1', [change.dropAbove]);
  if (change.save.length === 0) return;
  await client.query(
    `INSERT INTO events.checkpoints (round_id, round_count, state)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::jsonb[])
     ON CONFLICT (round_id) DO UPDATE SET round_count = excluded.round_count, state = excluded.state`,
    [change.save.map((c) => c.roundId), change.save.map((c) => c.roundCount), change.save.map((c) => JSON.stringify(c.state))],
  );
}
