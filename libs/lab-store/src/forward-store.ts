import { billingReads } from '@gridlab/billing-store';
import { withTransaction, type Pool, type PoolClient } from '@gridlab/db';
import { roundReads } from '@gridlab/rounds-store';
import { toStats, type StatsColumns, type StatsRow } from './strategy-store';

/** An active session as the writer tracks it. */
export interface ActiveSession {
  readonly id: string;
  readonly sessionSeq: number;
  readonly sessionStartRoundId: number;
}

/** A session's strategy DSL and its committed figures, for building its runner. */
export interface SessionState extends ActiveSession {
  readonly dsl: Record<string, unknown>;
  readonly stats: StatsRow;
}

/** One decision to record (squares and stakes in the same order). */
export interface PredictionRow {
  readonly strategyId: string;
  readonly squares: readonly number[];
  readonly stakes: readonly number[];
  readonly reason: string;
}

/** One prediction to settle; inserted as late when it was never recorded. */
export interface SettlementRow extends PredictionRow {
  readonly stakeLamports: number;
  readonly pnlLamports: number;
  readonly hit: boolean;
}

export interface StopRow {
  readonly strategyId: string;
  readonly reason: 'stop_loss_streak' | 'take_profit' | 'session_stop_loss';
}

const pgArray = (values: readonly number[]): string => `{${values.join(',')}}`;

/**
 * The forward writer's side of the lab schema. Each change runs in a WriterTx that holds
 * the progress row FOR UPDATE, so command handlers (which hold it FOR SHARE to start or
 * end sessions) never interleave with a settlement.
 */
/** A settled winning prediction as stored. */
export interface SettledHit {
  readonly strategyId: string;
  readonly roundId: number;
  readonly squares: readonly number[];
  readonly stakes: readonly number[];
  readonly pnlLamports: number;
}

export class ForwardStore {
  constructor(private readonly pool: Pool) {}

  /** Last round settled, or null before the writer's first start. */
  async settledThrough(): Promise<number | null> {
    const { rows } = await this.pool.query<{ round_id: number | null }>('SELECT round_id FROM lab.progress');
    return rows[0]?.round_id ?? null;
  }

  /** Starts the writer at `roundId` when it has never run (nothing before it is settled). */
  async initProgress(roundId: number): Promise<number> {
    const { rows } = await this.pool.query<{ round_id: number }>(
      'UPDATE lab.progress SET round_id = COALESCE(round_id, $1), updated_at = now() RETURNING round_id',
      [roundId],
    );
    return rows[0]!.round_id;
  }

  /** The payout arithmetic the stored figures were priced with (see the payout-revision migration). */
  async payoutRevision(): Promise<string> {
    const { rows } = await this.pool.query<{ payout_revision: string }>('SELECT payout_revision FROM lab.progress');
    return rows[0]!.payout_revision;
  }

  tx<T>(fn: (tx: WriterTx) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ round_id: number | null }>('SELECT round_id FROM lab.progress FOR UPDATE');
      return fn(new WriterTx(client, rows[0]?.round_id ?? null));
    });
  }
}

export class WriterTx {
  constructor(
    readonly client: PoolClient,
    /** The committed position, read under the lock. */
    readonly settledThrough: number | null,
  ) {}

  async activeSessions(): Promise<ActiveSession[]> {
    const { rows } = await this.client.query<{ id: string; session_seq: number; session_start_round_id: number }>(
      'SELECT id, session_seq, session_start_round_id FROM lab.strategies WHERE active AND deleted_at IS NULL',
    );
    return rows.map((r) => ({ id: r.id, sessionSeq: r.session_seq, sessionStartRoundId: r.session_start_round_id }));
  }

  async sessionStates(ids: readonly string[]): Promise<SessionState[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.client.query<StatsColumns & { id: string; s_seq: number; session_start_round_id: number; dsl: Record<string, unknown> }>(
      `SELECT s.id, s.session_seq AS s_seq, s.session_start_round_id, s.dsl, f.*
         FROM lab.strategies s JOIN lab.forward_stats f ON f.strategy_id = s.id WHERE s.id = ANY($1::text[])`,
      [ids],
    );
    return rows.map((r) => ({ id: r.id, sessionSeq: r.s_seq, sessionStartRoundId: r.session_start_round_id, dsl: r.dsl, stats: toStats(r) }));
  }

  /** Which of the strategies already have a prediction for the round. */
  async recordedFor(roundId: number): Promise<Set<string>> {
    const { rows } = await this.client.query<{ strategy_id: string }>('SELECT strategy_id FROM lab.predictions WHERE round_id = $1', [roundId]);
    return new Set(rows.map((r) => r.strategy_id));
  }

  /** Records decisions for a round not settled yet (an existing one is kept). */
  async record(roundId: number, at: Date, rows: readonly PredictionRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.query(
      `INSERT INTO lab.predictions (strategy_id, round_id, squares, stakes, reason, late, recorded_at)
       SELECT u.id, $1, u.squares::smallint[], u.stakes::bigint[], u.reason, false, $2
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, squares, stakes, reason)
       ON CONFLICT (strategy_id, round_id) DO NOTHING`,
      [roundId, at, rows.map((r) => r.strategyId), rows.map((r) => pgArray(r.squares)), rows.map((r) => pgArray(r.stakes)), rows.map((r) => r.reason)],
    );
  }

  /**
   * Settles the round's predictions: a recorded one is completed, a missing one inserted
   * as late. A prediction already settled is left alone (never settled twice).
   */
  async settle(roundId: number, winningSquare: number | null, at: Date, rows: readonly SettlementRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.query(
      `INSERT INTO lab.predictions (strategy_id, round_id, squares, stakes, reason, late, recorded_at, settled_at, winning_square,
                                    stake_lamports, pnl_lamports, hit)
       SELECT u.id, $1, u.squares::smallint[], u.stakes::bigint[], u.reason, true, $2, $2, $3, u.stake, u.pnl, u.hit
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::boolean[])
              AS u(id, squares, stakes, reason, stake, pnl, hit)
       ON CONFLICT (strategy_id, round_id) DO UPDATE
          SET settled_at = EXCLUDED.settled_at, winning_square = EXCLUDED.winning_square, stake_lamports = EXCLUDED.stake_lamports,
              pnl_lamports = EXCLUDED.pnl_lamports, hit = EXCLUDED.hit
        WHERE lab.predictions.settled_at IS NULL`,
      [
        roundId,
        at,
        winningSquare,
        rows.map((r) => r.strategyId),
        rows.map((r) => pgArray(r.squares)),
        rows.map((r) => pgArray(r.stakes)),
        rows.map((r) => r.reason),
        rows.map((r) => r.stakeLamports),
        rows.map((r) => r.pnlLamports),
        rows.map((r) => r.hit),
      ],
    );
  }

  /** Every settled winning prediction (a hit), strategy by strategy in round order: the rows a payout revision can change. */
  async settledHits(): Promise<SettledHit[]> {
    const { rows } = await this.client.query<{ strategy_id: string; round_id: string; squares: number[]; stakes: string[]; pnl_lamports: string }>(
      `SELECT strategy_id, round_id, squares, stakes, pnl_lamports FROM lab.predictions
        WHERE settled_at IS NOT NULL AND hit ORDER BY strategy_id, round_id`,
    );
    return rows.map((r) => ({ strategyId: r.strategy_id, roundId: Number(r.round_id), squares: r.squares, stakes: r.stakes.map(Number), pnlLamports: Number(r.pnl_lamports) }));
  }

  /** The settled bet-rounds (a stake on a non-voided round) of some strategies, each in round order. */
  async settledBets(ids: readonly string[]): Promise<{ strategyId: string; roundId: number; squares: number; stakeLamports: number; pnlLamports: number }[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.client.query<{ strategy_id: string; round_id: string; squares: number; stake_lamports: string; pnl_lamports: string }>(
      `SELECT strategy_id, round_id, cardinality(squares) AS squares, stake_lamports, pnl_lamports FROM lab.predictions
        WHERE strategy_id = ANY($1::text[]) AND settled_at IS NOT NULL AND winning_square IS NOT NULL AND stake_lamports > 0
        ORDER BY strategy_id, round_id`,
      [ids],
    );
    return rows.map((r) => ({ strategyId: r.strategy_id, roundId: Number(r.round_id), squares: r.squares, stakeLamports: Number(r.stake_lamports), pnlLamports: Number(r.pnl_lamports) }));
  }

  /** The stored figures and current session start of some strategies (deleted ones included). */
  async statsOf(ids: readonly string[]): Promise<{ stats: StatsRow; sessionStartRoundId: number }[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.client.query<StatsColumns & { session_start_round_id: string }>(
      `SELECT s.session_start_round_id, f.* FROM lab.strategies s JOIN lab.forward_stats f ON f.strategy_id = s.id WHERE s.id = ANY($1::text[])`,
      [ids],
    );
    return rows.map((r) => ({ stats: toStats(r), sessionStartRoundId: Number(r.session_start_round_id) }));
  }

  /** Sets settled predictions' PnL. */
  async repricePredictions(rows: readonly { strategyId: string; roundId: number; pnlLamports: number }[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.query(
      `UPDATE lab.predictions p SET pnl_lamports = u.pnl
         FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(id, round_id, pnl)
        WHERE p.strategy_id = u.id AND p.round_id = u.round_id`,
      [rows.map((r) => r.strategyId), rows.map((r) => r.roundId), rows.map((r) => r.pnlLamports)],
    );
  }

  /** Records the payout arithmetic the stored figures are now priced with. */
  async savePayoutRevision(revision: string): Promise<void> {
    await this.client.query('UPDATE lab.progress SET payout_revision = $1, updated_at = now()', [revision]);
  }

  /** Pending predictions of rounds that will never be settled (ids skipped as missing). */
  async dropUnsettledBefore(roundId: number): Promise<void> {
    await this.client.query('DELETE FROM lab.predictions WHERE round_id < $1 AND settled_at IS NULL', [roundId]);
  }

  async saveStats(rows: readonly StatsRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof StatsRow>(k: K): StatsRow[K][] => rows.map((r) => r[k]);
    await this.client.query(
      `UPDATE lab.forward_stats f SET session_seq = u.seq, rounds_observed = u.observed, rounds_settled = u.settled, rounds_bet = u.bet,
              rounds_won = u.won, squares_bet = u.squares, net_lamports = u.net, stake_lamports = u.stake, peak_lamports = u.peak,
              min_net_lamports = u.min_net, max_drawdown_lamports = u.drawdown, streak = u.streak, max_streak = u.max_streak,
              late_count = u.late, roi_percent = u.roi, last_round_id = u.last, ore_earned = u.ore, ore_value_lamports = u.ore_value
         FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::bigint[], $9::bigint[],
                     $10::bigint[], $11::bigint[], $12::bigint[], $13::int[], $14::int[], $15::int[], $16::float8[], $17::bigint[],
                     $18::numeric[], $19::bigint[])
              AS u(id, seq, observed, settled, bet, won, squares, net, stake, peak, min_net, drawdown, streak, max_streak, late, roi, last,
                   ore, ore_value)
        WHERE f.strategy_id = u.id`,
      [
        col('strategyId'),
        col('sessionSeq'),
        col('roundsObserved'),
        col('roundsSettled'),
        col('roundsBet'),
        col('roundsWon'),
        col('squaresBet'),
        col('netLamports'),
        col('stakeLamports'),
        col('peakLamports'),
        col('minNetLamports'),
        col('maxDrawdownLamports'),
        col('streak'),
        col('maxStreak'),
        col('lateCount'),
        col('roiPercent'),
        col('lastRoundId'),
        col('oreEarned'),
        col('oreValueLamports'),
      ],
    );
  }

  /**
   * Follows the owners' subscriptions (billing's table): the active strategies
   * of an owner whose paid period has ended stop (`subscription_expired`, their unsettled
   * predictions dropped) after the last settled round; strategies stopped that way whose
   * owner has renewed start a new session at the round after the newest stored one, as
   * `active: true` would. Returns how many stopped and resumed.
   */
  async followSubscriptions(at: Date): Promise<{ stopped: number; resumed: number }> {
    const stopped = await this.client.query<{ id: string }>(
      `UPDATE lab.strategies s SET active = false, stopped_reason = 'subscription_expired', stopped_at_round_id = $1, updated_at = $2
        WHERE s.active AND NOT ${billingReads.activeSubscriptionSql('s.owner', '$2')}
        RETURNING s.id`,
      [this.settledThrough ?? 0, at],
    );
    if (stopped.rows.length > 0) {
      await this.client.query('DELETE FROM lab.predictions WHERE strategy_id = ANY($1::text[]) AND settled_at IS NULL', [stopped.rows.map((r) => r.id)]);
    }
    const resumed = await this.client.query(
      `UPDATE lab.strategies s SET active = true, session_seq = s.session_seq + 1,
              session_start_round_id = greatest($1::bigint, ${roundReads.latestStoredIdSql}) + 1,
              stopped_reason = NULL, stopped_at_round_id = NULL, updated_at = $2
        WHERE NOT s.active AND s.stopped_reason = 'subscription_expired' AND s.deleted_at IS NULL
          AND ${billingReads.activeSubscriptionSql('s.owner', '$2')}`,
      [this.settledThrough ?? 0, at],
    );
    return { stopped: stopped.rows.length, resumed: resumed.rowCount ?? 0 };
  }

  /** Ends the sessions a stop condition exited at `roundId` (SPEC 7.6). */
  async stop(roundId: number, at: Date, rows: readonly StopRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.query(
      `UPDATE lab.strategies s SET active = false, stopped_reason = u.reason, stopped_at_round_id = $1, updated_at = $2
         FROM unnest($3::text[], $4::text[]) AS u(id, reason) WHERE s.id = u.id`,
      [roundId, at, rows.map((r) => r.strategyId), rows.map((r) => r.reason)],
    );
  }

  async saveProgress(roundId: number): Promise<void> {
    await this.client.query('UPDATE lab.progress SET round_id = $1, updated_at = now()', [roundId]);
  }

  /** Rebuilds the board: qualifying strategies by ROI, then rounds settled (then id, for a stable order). */
  async regenerateLeaderboard(minRounds: number, size: number, at: Date): Promise<void> {
    await this.client.query('DELETE FROM lab.leaderboard');
    await this.client.query(
      `INSERT INTO lab.leaderboard (rank, strategy_id, roi_percent, rounds_settled, net_lamports)
       SELECT row_number() OVER (ORDER BY roi_percent DESC, rounds_settled DESC, strategy_id), strategy_id, roi_percent, rounds_settled, net_lamports
         FROM lab.forward_stats f WHERE rounds_settled >= $1
          AND EXISTS (SELECT 1 FROM lab.strategies s WHERE s.id = f.strategy_id AND s.deleted_at IS NULL)
        ORDER BY roi_percent DESC, rounds_settled DESC, strategy_id LIMIT $2`,
      [minRounds, size],
    );
    await this.client.query('UPDATE lab.leaderboard_meta SET generated_at = $1, min_rounds_to_qualify = $2', [at, minRounds]);
  }
}
