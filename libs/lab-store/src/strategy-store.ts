import { billingReads } from '@gridlab/billing-store';
import { withTransaction, type Pool, type PoolClient } from '@gridlab/db';
import { roundReads } from '@gridlab/rounds-store';

/** A stored strategy and its current (or last) session. */
export interface StrategyRow {
  readonly id: string;
  readonly owner: string;
  readonly name: string;
  readonly dsl: Record<string, unknown>;
  readonly active: boolean;
  readonly sessionSeq: number;
  readonly sessionStartRoundId: number;
  readonly stoppedReason: 'stop_loss_streak' | 'take_profit' | 'session_stop_loss' | 'subscription_expired' | null;
  readonly stoppedAtRoundId: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A strategy's running forward figures (lamport integers), as committed with its last settled round. */
export interface StatsRow {
  readonly strategyId: string;
  readonly sessionSeq: number;
  readonly roundsObserved: number;
  readonly roundsSettled: number;
  readonly roundsBet: number;
  readonly roundsWon: number;
  readonly squaresBet: number;
  readonly netLamports: number;
  readonly stakeLamports: number;
  readonly peakLamports: number;
  readonly minNetLamports: number;
  readonly maxDrawdownLamports: number;
  readonly streak: number;
  readonly maxStreak: number;
  readonly lateCount: number;
  readonly roiPercent: number;
  readonly lastRoundId: number | null;
  /** ORE earned on `returns` rounds, base units, a decimal string (may pass 2^53). */
  readonly oreEarned: string;
  /** That ORE's value in lamports (included in netLamports). */
  readonly oreValueLamports: number;
}

/** One settled, non-voided round of a strategy's record: its PnL. */
export interface SettledPnl {
  readonly roundId: number;
  readonly pnlLamports: number;
}

export interface LeaderboardRow {
  readonly rank: number;
  readonly id: string;
  readonly name: string;
  readonly owner: string;
  readonly dsl: Record<string, unknown>;
  readonly createdAt: Date;
  readonly roiPercent: number;
  readonly roundsSettled: number;
  readonly netLamports: number;
}

const STRATEGY_COLUMNS = `s.id, s.owner, s.name, s.dsl, s.active, s.session_seq, s.session_start_round_id, s.stopped_reason,
  s.stopped_at_round_id, s.created_at, s.updated_at`;
const STATS_COLUMNS = `f.strategy_id, f.session_seq, f.rounds_observed, f.rounds_settled, f.rounds_bet, f.rounds_won, f.squares_bet,
  f.net_lamports, f.stake_lamports, f.peak_lamports, f.min_net_lamports, f.max_drawdown_lamports, f.streak, f.max_streak,
  f.late_count, f.roi_percent, f.last_round_id, f.ore_earned, f.ore_value_lamports`;

/** A row of STRATEGY_COLUMNS, as pg returns it. */
interface StrategyColumns {
  readonly id: string;
  readonly owner: string;
  readonly name: string;
  readonly dsl: Record<string, unknown>;
  readonly active: boolean;
  readonly session_seq: number;
  readonly session_start_round_id: number;
  readonly stopped_reason: StrategyRow['stoppedReason'];
  readonly stopped_at_round_id: number | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** A row of STATS_COLUMNS (bigint ORE columns arrive as strings). */
export interface StatsColumns {
  readonly strategy_id: string;
  readonly session_seq: number;
  readonly rounds_observed: number;
  readonly rounds_settled: number;
  readonly rounds_bet: number;
  readonly rounds_won: number;
  readonly squares_bet: number;
  readonly net_lamports: number;
  readonly stake_lamports: number;
  readonly peak_lamports: number;
  readonly min_net_lamports: number;
  readonly max_drawdown_lamports: number;
  readonly streak: number;
  readonly max_streak: number;
  readonly late_count: number;
  readonly roi_percent: number;
  readonly last_round_id: number | null;
  readonly ore_earned: string;
  readonly ore_value_lamports: string | number;
}

export const toStrategy = (r: StrategyColumns): StrategyRow => ({
  id: r.id,
  owner: r.owner,
  name: r.name,
  dsl: r.dsl,
  active: r.active,
  sessionSeq: r.session_seq,
  sessionStartRoundId: r.session_start_round_id,
  stoppedReason: r.stopped_reason,
  stoppedAtRoundId: r.stopped_at_round_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toStats = (r: StatsColumns): StatsRow => ({
  strategyId: r.strategy_id,
  sessionSeq: r.session_seq,
  roundsObserved: r.rounds_observed,
  roundsSettled: r.rounds_settled,
  roundsBet: r.rounds_bet,
  roundsWon: r.rounds_won,
  squaresBet: r.squares_bet,
  netLamports: r.net_lamports,
  stakeLamports: r.stake_lamports,
  peakLamports: r.peak_lamports,
  minNetLamports: r.min_net_lamports,
  maxDrawdownLamports: r.max_drawdown_lamports,
  streak: r.streak,
  maxStreak: r.max_streak,
  lateCount: r.late_count,
  roiPercent: r.roi_percent,
  lastRoundId: r.last_round_id,
  oreEarned: String(r.ore_earned),
  oreValueLamports: Number(r.ore_value_lamports),
});

/**
 * Inside a transaction that holds the writer's progress row FOR SHARE: no settlement
 * commits meanwhile, so a session started or ended here has a clean round boundary.
 */
export class SessionTx {
  constructor(
    readonly client: PoolClient,
    /** Last round the writer settled (null before its first start). */
    readonly settledThrough: number | null,
    /** Newest round stored by the indexer (null when none). */
    readonly latestStored: number | null,
  ) {}

  /** Serializes the creations of one owner (the per-owner limit). */
  async lockOwner(owner: string): Promise<void> {
    await this.client.query("SELECT pg_advisory_xact_lock(hashtext('lab-owner:' || $1))", [owner]);
  }

  async countOwned(owner: string): Promise<number> {
    const { rows } = await this.client.query<{ n: number }>('SELECT count(*)::int AS n FROM lab.strategies WHERE owner = $1 AND deleted_at IS NULL', [
      owner,
    ]);
    return rows[0]!.n;
  }

  async insert(row: StrategyRow): Promise<void> {
    await this.client.query(
      `INSERT INTO lab.strategies (id, owner, name, dsl, active, session_seq, session_start_round_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [row.id, row.owner, row.name, JSON.stringify(row.dsl), row.active, row.sessionSeq, row.sessionStartRoundId, row.createdAt, row.updatedAt],
    );
    await this.client.query('INSERT INTO lab.forward_stats (strategy_id, session_seq) VALUES ($1, $2)', [row.id, row.sessionSeq]);
  }

  /** The owner's strategy (not deleted), locked for this transaction, or null. */
  async findForUpdate(owner: string, id: string): Promise<StrategyRow | null> {
    const { rows } = await this.client.query<StrategyColumns>(
      `SELECT ${STRATEGY_COLUMNS} FROM lab.strategies s WHERE s.id = $1 AND s.owner = $2 AND s.deleted_at IS NULL FOR UPDATE`,
      [id, owner],
    );
    return rows.length === 0 ? null : toStrategy(rows[0]!);
  }

  /** The owner's deleted (not yet purged) strategy, locked, with whether its session ran when deleted; or null. */
  async findDeletedForUpdate(owner: string, id: string): Promise<{ row: StrategyRow; wasActive: boolean } | null> {
    const { rows } = await this.client.query<StrategyColumns & { deleted_active: boolean | null }>(
      `SELECT ${STRATEGY_COLUMNS}, s.deleted_active FROM lab.strategies s WHERE s.id = $1 AND s.owner = $2 AND s.deleted_at IS NOT NULL FOR UPDATE`,
      [id, owner],
    );
    return rows.length === 0 ? null : { row: toStrategy(rows[0]!), wasActive: rows[0]!.deleted_active === true };
  }

  async update(row: StrategyRow): Promise<void> {
    await this.client.query(
      `UPDATE lab.strategies SET name = $2, active = $3, session_seq = $4, session_start_round_id = $5, stopped_reason = $6,
              stopped_at_round_id = $7, updated_at = $8 WHERE id = $1`,
      [row.id, row.name, row.active, row.sessionSeq, row.sessionStartRoundId, row.stoppedReason, row.stoppedAtRoundId, row.updatedAt],
    );
  }

  /** Removes the strategy's recorded, unsettled predictions (its session ended). */
  async dropPending(id: string): Promise<void> {
    await this.client.query('DELETE FROM lab.predictions WHERE strategy_id = $1 AND settled_at IS NULL', [id]);
  }

  /**
   * Deletes the strategy, recoverably: hidden from reads, the forward test (its session
   * ends, its unsettled predictions dropped), the board and the owner's cap; its record
   * stays until restore() or the purge.
   */
  async delete(row: StrategyRow, at: Date): Promise<void> {
    await this.client.query('UPDATE lab.strategies SET deleted_at = $2, deleted_active = active, active = false, updated_at = $2 WHERE id = $1', [
      row.id,
      at,
    ]);
    await this.dropPending(row.id);
    await this.client.query('DELETE FROM lab.leaderboard WHERE strategy_id = $1', [row.id]);
  }

  /** Brings a deleted strategy back (its fields as `row` says: a restore may start a new session). */
  async restore(row: StrategyRow): Promise<void> {
    await this.client.query('UPDATE lab.strategies SET deleted_at = NULL, deleted_active = NULL WHERE id = $1', [row.id]);
    await this.update(row);
  }
}

/** Reads of the Strategy Lab's records and the command handlers' writes (any replica). */
export class StrategyStore {
  constructor(private readonly pool: Pool) {}

  /** The wallet key of a subscriber (billing's table), or null. */
  async ownerOf(subscriberId: string): Promise<string | null> {
    return billingReads.ownerOf(this.pool, subscriberId);
  }

  /** Runs `fn` in a transaction holding the writer's progress FOR SHARE (see SessionTx). */
  session<T>(fn: (tx: SessionTx) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, async (client) => {
      const progress = await client.query<{ round_id: number | null }>('SELECT round_id FROM lab.progress FOR SHARE');
      const latest = await roundReads.latestStoredId(client);
      return fn(new SessionTx(client, progress.rows[0]?.round_id ?? null, latest));
    });
  }

  /** The owner's strategies with their figures, oldest first. */
  async list(owner: string): Promise<{ strategy: StrategyRow; stats: StatsRow }[]> {
    const { rows } = await this.pool.query<StrategyColumns & StatsColumns>(
      `SELECT ${STRATEGY_COLUMNS}, ${STATS_COLUMNS} FROM lab.strategies s JOIN lab.forward_stats f ON f.strategy_id = s.id
        WHERE s.owner = $1 AND s.deleted_at IS NULL ORDER BY s.created_at, s.id`,
      [owner],
    );
    return rows.map((r) => ({ strategy: toStrategy(r), stats: toStats(r) }));
  }

  async find(owner: string, id: string): Promise<StrategyRow | null> {
    const { rows } = await this.pool.query<StrategyColumns>(`SELECT ${STRATEGY_COLUMNS} FROM lab.strategies s WHERE s.id = $1 AND s.owner = $2 AND s.deleted_at IS NULL`, [
      id,
      owner,
    ]);
    return rows.length === 0 ? null : toStrategy(rows[0]!);
  }

  /**
   * Purges strategies deleted before `before`: the row goes, and its predictions, figures
   * and board entry with it (ON DELETE CASCADE). Returns how many.
   */
  async purgeDeleted(before: Date): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM lab.strategies WHERE deleted_at < $1', [before]);
    return rowCount ?? 0;
  }

  async predictionCounts(id: string): Promise<{ total: number; pending: number }> {
    const { rows } = await this.pool.query<{ total: number; pending: number }>(
      'SELECT count(*)::int AS total, count(*) FILTER (WHERE settled_at IS NULL)::int AS pending FROM lab.predictions WHERE strategy_id = $1',
      [id],
    );
    return rows[0] ?? { total: 0, pending: 0 };
  }

  /** The owner's strategy with its figures, or null; one snapshot (repeatable read). */
  async forward(owner: string, id: string): Promise<{ strategy: StrategyRow; stats: StatsRow; pending: number; series: SettledPnl[] } | null> {
    return withTransaction(this.pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await client.query<StrategyColumns & StatsColumns>(
        `SELECT ${STRATEGY_COLUMNS}, ${STATS_COLUMNS} FROM lab.strategies s JOIN lab.forward_stats f ON f.strategy_id = s.id
          WHERE s.id = $1 AND s.owner = $2 AND s.deleted_at IS NULL`,
        [id, owner],
      );
      if (rows.length === 0) return null;
      const pending = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM lab.predictions WHERE strategy_id = $1 AND settled_at IS NULL', [id]);
      return { strategy: toStrategy(rows[0]!), stats: toStats(rows[0]!), pending: pending.rows[0]!.n, series: await settledSeries(client, id) };
    });
  }

  /** The board, best first, with when it was generated. */
  async leaderboard(): Promise<{ generatedAt: Date; entries: LeaderboardRow[] }> {
    return withTransaction(this.pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const meta = await client.query<{ generated_at: Date }>('SELECT generated_at FROM lab.leaderboard_meta');
      const { rows } = await client.query<LeaderboardColumns>(
        `SELECT l.rank, s.id, s.name, s.owner, s.dsl, s.created_at, l.roi_percent, l.rounds_settled, l.net_lamports
           FROM lab.leaderboard l JOIN lab.strategies s ON s.id = l.strategy_id WHERE s.deleted_at IS NULL ORDER BY l.rank`,
      );
      return { generatedAt: meta.rows[0]!.generated_at, entries: rows.map(toLeaderboardRow) };
    });
  }

  /** One strategy's board entry and its settled series, or null when it is not on the board. */
  async leaderboardEntry(id: string): Promise<{ entry: LeaderboardRow; series: SettledPnl[] } | null> {
    return withTransaction(this.pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await client.query<LeaderboardColumns>(
        `SELECT l.rank, s.id, s.name, s.owner, s.dsl, s.created_at, l.roi_percent, l.rounds_settled, l.net_lamports
           FROM lab.leaderboard l JOIN lab.strategies s ON s.id = l.strategy_id WHERE l.strategy_id = $1 AND s.deleted_at IS NULL`,
        [id],
      );
      if (rows.length === 0) return null;
      return { entry: toLeaderboardRow(rows[0]!), series: await settledSeries(client, id) };
    });
  }
}

interface LeaderboardColumns {
  readonly rank: number;
  readonly id: string;
  readonly name: string;
  readonly owner: string;
  readonly dsl: Record<string, unknown>;
  readonly created_at: Date;
  readonly roi_percent: number;
  readonly rounds_settled: number;
  readonly net_lamports: number;
}

const toLeaderboardRow = (r: LeaderboardColumns): LeaderboardRow => ({
  rank: r.rank,
  id: r.id,
  name: r.name,
  owner: r.owner,
  dsl: r.dsl,
  createdAt: r.created_at,
  roiPercent: r.roi_percent,
  roundsSettled: r.rounds_settled,
  netLamports: r.net_lamports,
});

/** PnL of every settled, non-voided round of a strategy, in round order. */
async function settledSeries(client: PoolClient, id: string): Promise<SettledPnl[]> {
  const { rows } = await client.query<{ round_id: number; pnl_lamports: number }>(
    `SELECT round_id, pnl_lamports FROM lab.predictions
      WHERE strategy_id = $1 AND settled_at IS NOT NULL AND winning_square IS NOT NULL ORDER BY round_id`,
    [id],
  );
  return rows.map((r) => ({ roundId: r.round_id, pnlLamports: r.pnl_lamports }));
}
