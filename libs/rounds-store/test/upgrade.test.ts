/**
 * Upgrades of the indexer's schema with data in it: a database at the first release's
 * schema (rounds, totals, square stats and chain identity), filled as that release wrote
 * it, migrated to HEAD and read back row by row; a database at the schema that kept
 * `round_lines`, whose cache the later migrations wipe. And every migration set run twice
 * changes nothing. Expected rows are written out by hand from the migrations' SQL.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { LAB_MIGRATIONS_DIR, LAB_SCHEMA } from '@gridlab/lab-store';
import { createTestDatabase, migrationsThrough, type TestDatabase } from '@gridlab/testing';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository, packSquares } from '../src';

const squares = (values: Record<number, number>) => Array.from({ length: 25 }, (_, i) => values[i] ?? 0);
const settledAt = new Date('2025-11-10T15:39:00.000Z');
/** Round 101: square 3 won with 2 ORE of motherlode; round 102 voided (slot hash all 0xFF). */
const ROUND_101 = { id: 101, deployed: squares({ 3: 1_000_000, 4: 2_000_001 }), count: squares({ 3: 1, 4: 2 }), winning: 3, winnings: 1_782_000, vaulted: 198_000, miners: 3, motherlode: 200_000_000_000, hash: `03${'00'.repeat(31)}` };
const ROUND_102 = { id: 102, deployed: squares({ 7: 5_000 }), count: squares({ 7: 1 }), winning: null, winnings: 0, vaulted: 0, miners: 1, motherlode: 0, hash: 'ff'.repeat(32) };

let db: TestDatabase;
let pool: Pool;

async function atSchema(last: string): Promise<void> {
  const earlier = migrationsThrough(INDEXER_MIGRATIONS_DIR, last);
  try {
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: earlier.dir });
  } finally {
    earlier.remove();
  }
}

beforeEach(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url);
});

afterEach(async () => {
  await pool.end();
  await db.drop();
});

describe('the indexer schema, upgraded with data in it', () => {
  it('from the first release: every round reads back as a parimutuel round from its account, the motherlode as the pool it paid, the rule totals seeded from the totals', async () => {
    await atSchema('1765324800000_chain-identity.sql');
    for (const r of [ROUND_101, ROUND_102]) {
      await pool.query(
        `INSERT INTO indexer.rounds (id, deployed, count, winning_square, total_deployed, total_winnings, total_vaulted, total_miners, motherlode, top_miner_reward, slot_hash, settled_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, decode($10, 'hex'), $11)`,
        [r.id, packSquares(r.deployed), packSquares(r.count), r.winning, r.deployed.reduce((a, b) => a + b, 0), r.winnings, r.vaulted, r.miners, r.motherlode, r.hash, settledAt],
      );
    }
    // As the first release kept them: settled_deployed and 99 * deployed[w] + 100 * totalWinnings of round 101.
    await pool.query(
      `UPDATE indexer.totals SET rounds_indexed = 2, voided_rounds = 1, first_id = 101, last_id = 102, total_deployed = 3005001,
              total_winnings = 1782000, settled_deployed = 3000001, winner_return_x100 = $1 WHERE id = 1`,
      [99 * 1_000_000 + 100 * 1_782_000],
    );
    await pool.query("INSERT INTO indexer.chain (id, genesis_hash) VALUES (1, '4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn')");

    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });

    const rounds = await new RoundRepository(pool).getRounds({ fromId: 100, toId: 110 });
    const common = { topMinerReward: 0, settledAt: settledAt.toISOString(), payoutRule: 'parimutuel', oreReward: null, topMiner: null, split: null, productionCost: null, source: 'account' };
    expect(rounds).toEqual([
      { ...common, id: 101, deployed: ROUND_101.deployed, count: ROUND_101.count, winningSquare: 3, totalDeployed: 3_000_001, totalWinnings: 1_782_000, totalVaulted: 198_000, totalMiners: 3, motherlode: 200_000_000_000, slotHash: ROUND_101.hash, motherlodePool: 200_000_000_000 },
      { ...common, id: 102, deployed: ROUND_102.deployed, count: ROUND_102.count, winningSquare: null, totalDeployed: 5_000, totalWinnings: 0, totalVaulted: 0, totalMiners: 1, motherlode: 0, slotHash: ROUND_102.hash, motherlodePool: null },
    ]);
    const rules = await pool.query('SELECT payout_rule, rounds, settled_deployed, returned_x100, ore_reward, ore_value FROM indexer.rule_totals ORDER BY payout_rule');
    expect(rules.rows).toEqual([
      { payout_rule: 0, rounds: 1, settled_deployed: '3000001', returned_x100: String(99 * 1_000_000 + 100 * 1_782_000), ore_reward: '0', ore_value: '0' },
      { payout_rule: 1, rounds: 0, settled_deployed: '0', returned_x100: '0', ore_reward: '0', ore_value: '0' },
    ]);
    expect((await pool.query('SELECT floor_id FROM indexer.history')).rows).toEqual([{ floor_id: null }]);
    expect((await pool.query('SELECT genesis_hash FROM indexer.chain')).rows).toEqual([{ genesis_hash: '4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn' }]);
  });

  it('from the schema with round_lines: the cached lines are wiped (their form changed) and refused rounds are due for a retry at once', async () => {
    await atSchema('1798000000000_round-source-and-history.sql');
    await pool.query("INSERT INTO indexer.round_lines (id, line) VALUES (101, '{\"id\":101}'), (102, '{\"id\":102}')");
    await pool.query('UPDATE indexer.totals SET lined_below = 103 WHERE id = 1');
    await pool.query("INSERT INTO indexer.unrecoverable_rounds (id, reason, detail, at) VALUES (7, 'mismatch', 'round 7: no rule matches', '2026-01-01T00:00:00Z')");
    const before = new Date();

    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });

    expect((await pool.query('SELECT count(*)::int AS n FROM indexer.round_lines')).rows).toEqual([{ n: 0 }]);
    expect((await pool.query('SELECT lined_below FROM indexer.totals')).rows).toEqual([{ lined_below: 0 }]);
    const refused = await pool.query<{ id: number; attempts: number; next_attempt_at: Date }>('SELECT id, attempts, next_attempt_at FROM indexer.unrecoverable_rounds');
    expect(refused.rows.map((r) => [r.id, r.attempts])).toEqual([[7, 1]]);
    expect(refused.rows[0]!.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now());
    expect(refused.rows[0]!.next_attempt_at.getTime()).toBeGreaterThanOrEqual(before.getTime() - 60_000);
  });
});

describe('every migration set', () => {
  it('run twice changes nothing: the second run applies none and leaves every table as the first left it', async () => {
    const sets = [
      { schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR },
      { schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR },
      { schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR },
      { schema: LAB_SCHEMA, dir: LAB_MIGRATIONS_DIR },
    ];
    const snapshot = async () =>
      (
        await pool.query(
          `SELECT table_schema, table_name, column_name, data_type, column_default FROM information_schema.columns
            WHERE table_schema = ANY($1::text[]) ORDER BY 1, 2, 3`,
          [sets.map((s) => s.schema)],
        )
      ).rows;
    const applied = async () => (await Promise.all(sets.map(async (s) => (await pool.query(`SELECT count(*)::int AS n FROM ${s.schema}.pgmigrations`)).rows[0].n as number)));
    for (const s of sets) await runMigrations({ databaseUrl: db.url, ...s });
    const first = await snapshot();
    const counts = await applied();
    for (const s of sets) await runMigrations({ databaseUrl: db.url, ...s });
    expect(await applied()).toEqual(counts);
    expect(await snapshot()).toEqual(first);
    expect(first.length).toBeGreaterThan(50);
  });
});
