/**
 * An upgrade from the schema before the payout revision, with forward figures settled by
 * the former floating-point parimutuel payout: lab-forward's writer re-prices them to the
 * program's integer arithmetic on start, once, against a real PostgreSQL migrated from the
 * earlier schema. Every expected figure is worked by hand below.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import type { Round } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { ForwardStore, LAB_MIGRATIONS_DIR, LAB_SCHEMA } from '@gridlab/lab-store';
import { createLogger } from '@gridlab/logger';
import { createTestDatabase, migrationsThrough, type TestDatabase } from '@gridlab/testing';
import { ForwardWriter } from '../src/app/forward-writer';

const STRATEGY = 'stg_ABCDEFGHJKLMNPQRSTUVWX';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const LAST_BEFORE_REVISION = '1797000000000_soft-delete.sql';

/** Round 10 (parimutuel): square 0 wins with 3,000,000 on it; 2,000,000 on square 1 and 777,777 on square 5. */
const deployed = Array.from({ length: 25 }, (_, s) => (s === 0 ? 3_000_000 : s === 1 ? 2_000_000 : s === 5 ? 777_777 : 0));
const round10: Round = {
  id: 10,
  deployed,
  count: deployed.map((d) => (d > 0 ? 1 : 0)),
  winningSquare: 0,
  totalDeployed: 5_777_777,
  totalWinnings: 2_475_000,
  totalVaulted: 275_000,
  totalMiners: 3,
  motherlode: 0,
  topMinerReward: 0,
  slotHash: `19${'00'.repeat(31)}`,
  settledAt: '2026-07-01T00:00:00.000Z',
  payoutRule: 'parimutuel',
  oreReward: null,
  topMiner: null,
  split: null,
  productionCost: null,
  source: 'account',
  motherlodePool: null,
};
/** Round 11: square 0 wins again; the strategy bet square 3 and lost 1,005,000 (stake and fee). */
const round11: Round = { ...round10, id: 11 };

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url);
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  // The lab schema as it was before the payout revision.
  const earlier = migrationsThrough(LAB_MIGRATIONS_DIR, LAST_BEFORE_REVISION);
  try {
    await runMigrations({ databaseUrl: db.url, schema: LAB_SCHEMA, dir: earlier.dir });
  } finally {
    earlier.remove();
  }
  // One strategy that bet 10,000,000 on square 0 of round 10 (fee 5,000) and 1,000,000 on square 3 of round 11.
  // Revision p1 paid the hit floor(0.99 * 1e7 + 0.891 * 2,777,777 * 1e7 / 13,000,000) = 11,803,845: PnL 1,798,845.
  await pool.query(
    `INSERT INTO lab.strategies (id, owner, name, dsl, active, session_seq, session_start_round_id, created_at, updated_at)
     VALUES ($1, $2, 'flat on 0', '{"base_strategy":"cold"}', true, 1, 10, now(), now())`,
    [STRATEGY, OWNER],
  );
  await pool.query(
    `INSERT INTO lab.forward_stats (strategy_id, session_seq, rounds_observed, rounds_settled, rounds_bet, rounds_won, squares_bet,
                                    net_lamports, stake_lamports, peak_lamports, min_net_lamports, max_drawdown_lamports, streak, max_streak,
                                    roi_percent, last_round_id)
     VALUES ($1, 1, 2, 2, 2, 1, 2, 793845, 11000000, 1798845, 0, 1005000, 1, 1, 7.216772727272727, 11)`,
    [STRATEGY],
  );
  await pool.query(
    `INSERT INTO lab.predictions (strategy_id, round_id, squares, stakes, reason, late, recorded_at, settled_at, winning_square, stake_lamports, pnl_lamports, hit)
     VALUES ($1, 10, '{0}', '{10000000}', 'bet', false, now(), now(), 0, 10000000, 1798845, true),
            ($1, 11, '{3}', '{1000000}', 'bet', false, now(), now(), 0, 1000000, -1005000, false)`,
    [STRATEGY],
  );
  await pool.query('UPDATE lab.progress SET round_id = 11');
  await runMigrations({ databaseUrl: db.url, schema: LAB_SCHEMA, dir: LAB_MIGRATIONS_DIR });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

function writer(): ForwardWriter {
  const rounds = {
    getRounds: ({ fromId, toId }: { fromId: number; toId?: number }) => Promise.resolve([round10, round11].filter((r) => r.id >= fromId && r.id <= (toId ?? Infinity))),
    latestId: () => Promise.resolve(11),
    contiguousAfter: () => Promise.resolve([]),
  };
  const events = { settled: () => undefined, recorded: () => undefined };
  return new ForwardWriter(new ForwardStore(pool), rounds, events, createLogger({ service: 'test', silent: true }), { minRoundsToQualify: 1, leaderboardSize: 10 });
}

const figures = async () =>
  (await pool.query<{ net: number; peak: number; drawdown: number; min: number; streak: number; won: number; roi: number }>(
    `SELECT net_lamports AS net, peak_lamports AS peak, max_drawdown_lamports AS drawdown, min_net_lamports AS min, streak, rounds_won AS won, roi_percent AS roi
       FROM lab.forward_stats WHERE strategy_id = $1`,
    [STRATEGY],
  )).rows[0]!;

describe('an upgrade re-prices forward figures settled by the former parimutuel payout', () => {
  it('starts at revision p1 for the rows already there', async () => {
    expect((await pool.query('SELECT payout_revision FROM lab.progress')).rows).toEqual([{ payout_revision: 'p1' }]);
  });

  it('pays the hit as the program does and carries the lamport through the figures and the leaderboard', async () => {
    await writer().load();
    // The program: L = 2,777,777, w = L - L/100 = 2,750,000, total_winnings = w - w/10 = 2,475,000;
    // payout = 1e7 - 1e7/100 + floor(2,475,000 * 1e7 / 13,000,000) = 9,900,000 + 1,903,846 = 11,803,846.
    const pnl = await pool.query('SELECT round_id, pnl_lamports FROM lab.predictions ORDER BY round_id');
    expect(pnl.rows).toEqual([
      { round_id: 10, pnl_lamports: 1_798_846 },
      { round_id: 11, pnl_lamports: -1_005_000 },
    ]);
    // Net 1,798,846 - 1,005,000 = 793,846; peak 1,798,846; drawdown 1,005,000; ROI 100 * 793,846 / 11,000,000.
    expect(await figures()).toEqual({ net: 793_846, peak: 1_798_846, drawdown: 1_005_000, min: 0, streak: 1, won: 1, roi: (100 * 793_846) / 11_000_000 });
    expect((await pool.query('SELECT payout_revision FROM lab.progress')).rows).toEqual([{ payout_revision: 'p2' }]);
    const board = await pool.query('SELECT strategy_id FROM lab.leaderboard');
    expect(board.rows).toEqual([{ strategy_id: STRATEGY }]);
  });

  it('re-prices once: a second start and a second run of every migration change nothing', async () => {
    await runMigrations({ databaseUrl: db.url, schema: LAB_SCHEMA, dir: LAB_MIGRATIONS_DIR });
    await writer().load();
    expect((await pool.query('SELECT pnl_lamports FROM lab.predictions WHERE round_id = 10')).rows).toEqual([{ pnl_lamports: 1_798_846 }]);
    expect((await figures()).net).toBe(793_846);
  });
});
