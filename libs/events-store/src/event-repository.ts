import type { EventKind, LogEvent } from '@gridlab/contracts';
import type { Pool, PoolClient } from '@gridlab/db';

/** An event to append: its natural key, kind, time and kind-specific fields. */
export interface NewEvent {
  readonly dedupKey: string;
  readonly kind: EventKind;
  readonly ts: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** The writer's position in its sources. */
export interface Progress {
  readonly roundId: number;
  readonly deriverState: unknown;
  readonly billingFactSeq: number;
}

interface EventRow {
  id: number;
  kind: EventKind;
  ts: Date;
  body: Record<string, unknown>;
}

/** The kind filter (`$3`): events of the kind and `withdrawn` events of one of them (contracts' eventMatchesKind). */
const OF_KIND = "(kind = $3 OR (kind = 'withdrawn' AND body->>'eventKind' = $3))";

// A row holds an event that was validated when it was appended: its body is its kind's fields.
const toEvent = (row: EventRow): LogEvent => ({ id: row.id, ts: row.ts.toISOString(), kind: row.kind, ...row.body }) as LogEvent;

/** Reads of the event log (gateway) and the writer's appends (event-log, inside its transaction). */
export class EventRepository {
  constructor(private readonly pool: Pool) {}

  /** Events with id > since, ascending, at most `limit`, optionally of one kind (and the withdrawals of that kind). */
  async after(since: number, limit: number, kind?: EventKind): Promise<LogEvent[]> {
    const { rows } =
      kind === undefined
        ? await this.pool.query<EventRow>('SELECT id, kind, ts, body FROM events.events WHERE id > $1 ORDER BY id LIMIT $2', [since, limit])
        : await this.pool.query<EventRow>(`SELECT id, kind, ts, body FROM events.events WHERE ${OF_KIND} AND id > $1 ORDER BY id LIMIT $2`, [since, limit, kind]);
    return rows.map(toEvent);
  }

  /** The newest `limit` events (optionally of one kind, and the withdrawals of that kind), ascending. */
  async latest(limit: number, kind?: EventKind): Promise<LogEvent[]> {
    const { rows } =
      kind === undefined
        ? await this.pool.query<EventRow>('SELECT id, kind, ts, body FROM events.events ORDER BY id DESC LIMIT $1', [limit])
        : await this.pool.query<EventRow>(`SELECT id, kind, ts, body FROM events.events WHERE ${OF_KIND.replaceAll('$3', '$2')} ORDER BY id DESC LIMIT $1`, [limit, kind]);
    return rows.reverse().map(toEvent);
  }

  /** Events with after < id <= upTo, ascending (a reader filling a gap). */
  async between(after: number, upTo: number): Promise<LogEvent[]> {
    const { rows } = await this.pool.query<EventRow>('SELECT id, kind, ts, body FROM events.events WHERE id > $1 AND id <= $2 ORDER BY id', [after, upTo]);
    return rows.map(toEvent);
  }

  async lastId(): Promise<number> {
    const { rows } = await this.pool.query<{ id: number | null }>('SELECT max(id) AS id FROM events.events');
    return rows[0]?.id ?? 0;
  }

  async progress(): Promise<Progress> {
    const { rows } = await this.pool.query<{ round_id: number; deriver_state: unknown; billing_fact_seq: number }>(
      'SELECT round_id, deriver_state, billing_fact_seq FROM events.progress',
    );
    const row = rows[0]!;
    return { roundId: row.round_id, deriverState: row.deriver_state, billingFactSeq: row.billing_fact_seq };
  }
}

/**
 * Appends `events` whose dedup key is new among the live (not withdrawn) events, in
 * order, inside the writer's transaction, numbered from max(id) + 1; returns the
 * appended events with their ids. A known key is skipped (replay). A `withdrawn` event
 * (fields.eventId) marks the live event it names as withdrawn before anything is
 * inserted, so a later event of the same call may take that event's key again.
 * Only the leader calls this; should a deposed writer race it, the primary key makes
 * one transaction fail rather than reuse an id.
 * @throws Error when a withdrawal names an event that is not live (the caller's view is stale: the transaction must roll back).
 */
export async function appendEvents(client: PoolClient, events: readonly NewEvent[]): Promise<LogEvent[]> {
  if (events.length === 0) return [];
  const withdrawing = events.filter((e) => e.kind === 'withdrawn').map((e) => Number(e.fields['eventId']));
  const { rows: known } = await client.query<{ dedup_key: string }>(
    'SELECT dedup_key FROM events.events WHERE dedup_key = ANY($1::text[]) AND withdrawn_by IS NULL AND id <> ALL($2::bigint[])',
    [events.map((e) => e.dedupKey), withdrawing],
  );
  const seen = new Set(known.map((r) => r.dedup_key));
  const fresh = events.filter((e) => {
    if (seen.has(e.dedupKey)) return false;
    seen.add(e.dedupKey);
    return true;
  });
  if (fresh.length === 0) return [];
  const { rows } = await client.query<{ id: number | null }>('SELECT max(id) AS id FROM events.events');
  const first = (rows[0]?.id ?? 0) + 1;
  const withdrawals = fresh.flatMap((e, i) => (e.kind === 'withdrawn' ? [{ eventId: Number(e.fields['eventId']), by: first + i }] : []));
  if (withdrawals.length > 0) {
    const marked = await client.query(
      `UPDATE events.events e SET withdrawn_by = w.by FROM unnest($1::bigint[], $2::bigint[]) AS w(event_id, by)
        WHERE e.id = w.event_id AND e.withdrawn_by IS NULL AND e.kind <> 'withdrawn'`,
      [withdrawals.map((w) => w.eventId), withdrawals.map((w) => w.by)],
    );
    if (marked.rowCount !== withdrawals.length) throw new Error(`withdrawing ${withdrawals.length} events, ${marked.rowCount ?? 0} of them live`);
  }
  await client.query(
    `INSERT INTO events.events (id, dedup_key, kind, ts, body, round_id)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::jsonb[], $6::bigint[])`,
    [
      fresh.map((_, i) => first + i),
      fresh.map((e) => e.dedupKey),
      fresh.map((e) => e.kind),
      fresh.map((e) => e.ts),
      fresh.map((e) => JSON.stringify(e.fields)),
      fresh.map((e) => (typeof e.fields['roundId'] === 'number' ? e.fields['roundId'] : null)),
    ],
  );
  return fresh.map((e, i) => ({ id: first + i, ts: e.ts, kind: e.kind, ...e.fields }) as LogEvent);
}

/** Records the writer's position in the same transaction as the events it produced. */
export async function saveProgress(client: PoolClient, progress: Partial<Progress>): Promise<void> {
  await client.query(
    `UPDATE events.progress SET
       round_id = coalesce($1, round_id),
       deriver_state = coalesce($2, deriver_state),
       billing_fact_seq = coalesce($3, billing_fact_seq),
       updated_at = now()`,
    [progress.roundId ?? null, progress.deriverState === undefined ? null : JSON.stringify(progress.deriverState), progress.billingFactSeq ?? null],
  );
}
