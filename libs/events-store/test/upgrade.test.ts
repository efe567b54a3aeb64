/**
 * The event log's schema upgraded with data in it: a log written at the first release's
 * schema (every kind it knew, round events and a subscription event) migrated to HEAD.
 * Expected rows are written out by hand from the migrations' SQL: every row reads back as
 * it was written, round events gain their `round_id` from their body, none is withdrawn,
 * the kind constraint takes the kinds added since and still refuses an unknown one, and
 * the writer's reads (`liveRoundEvents`, the kind filter) see the old rows.
 */
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createTestDatabase, migrationsThrough, type TestDatabase } from '@gridlab/testing';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA, EventRepository, liveRoundEvents } from '../src';

const FIRST_RELEASE = '1764028800000_events.sql';
const TS = '2025-11-10T15:39:00.000Z';
/** The first release's log: what its writer appended (its body is the kind's fields). */
const OLD_ROWS = [
  { id: 1, key: 'drought_broken:101', kind: 'drought_broken', body: { roundId: 101, square: 3, drought: 61 } },
  { id: 2, key: 'big_round:101', kind: 'big_round', body: { roundId: 101, totalDeployed: 9_000_000_000, p99: 4_000_000_000 } },
  { id: 3, key: 'subscription:sub_1:1', kind: 'subscription', body: { subscriberId: 'sub_1', action: 'created' } },
  { id: 4, key: 'streak:113:7', kind: 'streak', body: { roundId: 113, square: 7, length: 3 } },
] as const;

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url);
  const earlier = migrationsThrough(EVENTS_MIGRATIONS_DIR, FIRST_RELEASE);
  try {
    await runMigrations({ databaseUrl: db.url, schema: EVENTS_SCHEMA, dir: earlier.dir });
  } finally {
    earlier.remove();
  }
  for (const r of OLD_ROWS) {
    await pool.query('INSERT INTO events.events (id, dedup_key, kind, ts, body) VALUES ($1, $2, $3, $4, $5)', [r.id, r.key, r.kind, TS, JSON.stringify(r.body)]);
  }
  await pool.query('UPDATE events.progress SET round_id = 113');
  await runMigrations({ databaseUrl: db.url, schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('the event log, upgraded from the first release with events in it', () => {
  it('keeps every row as written; round events gain their round_id, none is withdrawn', async () => {
    const { rows } = await pool.query<{ id: string; dedup_key: string; kind: string; body: unknown; round_id: string | null; withdrawn_by: string | null }>(
      'SELECT id, dedup_key, kind, body, round_id, withdrawn_by FROM events.events ORDER BY id',
    );
    expect(rows.map((r) => ({ ...r, id: Number(r.id), round_id: r.round_id === null ? null : Number(r.round_id) }))).toEqual([
      { id: 1, dedup_key: 'drought_broken:101', kind: 'drought_broken', body: OLD_ROWS[0].body, round_id: 101, withdrawn_by: null },
      { id: 2, dedup_key: 'big_round:101', kind: 'big_round', body: OLD_ROWS[1].body, round_id: 101, withdrawn_by: null },
      { id: 3, dedup_key: 'subscription:sub_1:1', kind: 'subscription', body: OLD_ROWS[2].body, round_id: null, withdrawn_by: null },
      { id: 4, dedup_key: 'streak:113:7', kind: 'streak', body: OLD_ROWS[3].body, round_id: 113, withdrawn_by: null },
    ]);
    expect((await new EventRepository(pool).progress()).roundId).toBe(113);
  });

  it("reads them as the writer and the gateway do: the live round events of a range, the kind filter", async () => {
    const live = await liveRoundEvents(pool, { after: 100, upTo: 113 }, []);
    expect(live.map((e) => [e.id, e.dedupKey])).toEqual([
      [1, 'drought_broken:101'],
      [2, 'big_round:101'],
      [4, 'streak:113:7'],
    ]);
    const streaks = await new EventRepository(pool).after(0, 10, 'streak');
    expect(streaks).toEqual([{ id: 4, ts: TS, kind: 'streak', roundId: 113, square: 7, length: 3 }]);
  });

  it('takes the kinds added since, refuses an unknown one, and keeps a live key unique', async () => {
    await pool.query("INSERT INTO events.events (id, dedup_key, kind, ts, body, round_id) VALUES (5, 'motherlode:120', 'motherlode', $1, '{\"roundId\":120}', 120)", [TS]);
    await pool.query("INSERT INTO events.events (id, dedup_key, kind, ts, body) VALUES (6, 'withdrawn:1', 'withdrawn', $1, '{\"eventId\":1,\"eventKind\":\"drought_broken\"}')", [TS]);
    await expect(pool.query("INSERT INTO events.events (id, dedup_key, kind, ts, body) VALUES (7, 'x:1', 'no_such_kind', $1, '{}')", [TS])).rejects.toThrow(/events_kind_check/);
    await expect(pool.query("INSERT INTO events.events (id, dedup_key, kind, ts, body) VALUES (7, 'streak:113:7', 'streak', $1, '{}')", [TS])).rejects.toThrow(/events_live_dedup_key_idx/);
    // Once its holder is withdrawn, a key may be taken again.
    await pool.query('UPDATE events.events SET withdrawn_by = 6 WHERE id = 1');
    await pool.query("INSERT INTO events.events (id, dedup_key, kind, ts, body, round_id) VALUES (7, 'drought_broken:101', 'drought_broken', $1, '{\"roundId\":101}', 101)", [TS]);
  });
});
