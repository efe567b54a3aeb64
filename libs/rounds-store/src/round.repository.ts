import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { PayoutRule, Round } from '@gridlab/contracts';
import { withTransaction, type Pool, type PoolClient } from '@gridlab/db';
import { from as copyFrom } from 'pg-copy-streams';
import { advanceDroughtsOver, sumBatch, type DroughtState, type RuleSums } from './aggregates';
import { RoundBatch } from './round-batch';
import { PAYOUT_RULE_CODES, ROUND_COLUMNS, SOURCES } from './rounds-table';
import { exportRoundsNdjson } from './ndjson-export';
import { writeRoundLines } from './round-lines';
import { unpackSquares } from './packing';

/** The outcome fields of a stored round (see `getOutcomes`). */
export type RoundOutcome = Pick<Round, 'id' | 'winningSquare' | 'totalDeployed' | 'totalMiners' | 'motherlode' | 'settledAt'>;

/** An inclusive range of round ids missing between stored rounds. */
export interface GapRange {
  readonly fromId: number;
  readonly toId: number;
}

/** Whole-history aggregates as stored (exact sums as bigint). */
export interface StoredAggregates {
  readonly roundsIndexed: number;
  readonly voidedRounds: number;
  readonly firstId: number | null;
  readonly lastId: number | null;
  readonly totalDeployed: bigint;
  readonly totalWinnings: bigint;
  readonly settledDeployed: bigint;
  readonly winnerReturnX100: bigint;
  readonly updatedAt: Date;
  /** Non-voided rounds by payout rule. */
  readonly byRule: Readonly<Record<PayoutRule, RuleSums>>;
  readonly squares: readonly {
    readonly square: number;
    readonly hits: number;
    readonly deployed: bigint;
    readonly lastHitId: number | null;
    readonly currentDrought: number;
    readonly maxDrought: number;
  }[];
}

interface RoundRow {
  id: number;
  deployed: Buffer;
  count: Buffer;
  winning_square: number | null;
  total_deployed: number;
  total_winnings: number;
  total_vaulted: number;
  total_miners: number | null;
  motherlode: number;
  top_miner_reward: number;
  slot_hash: Buffer;
  settled_at: Date;
  payout_rule: number;
  ore_reward: number | null;
  top_miner: string | null;
  split: boolean | null;
  production_cost: number | null;
  source: number;
  motherlode_pool: number | null;
}

const COLUMN_LIST = ROUND_COLUMNS.join(', ');

/** Wire Round from a stored row. */
export function rowToRound(row: RoundRow): Round {
  return {
    id: row.id,
    deployed: unpackSquares(row.deployed),
    count: unpackSquares(row.count),
    winningSquare: row.winning_square,
    totalDeployed: row.total_deployed,
    totalWinnings: row.total_winnings,
    totalVaulted: row.total_vaulted,
    totalMiners: row.total_miners,
    motherlode: row.motherlode,
    topMinerReward: row.top_miner_reward,
    slotHash: row.slot_hash.toString('hex'),
    settledAt: row.settled_at.toISOString(),
    payoutRule: row.payout_rule === PAYOUT_RULE_CODES.returns ? 'returns' : 'parimutuel',
    oreReward: row.ore_reward,
    topMiner: row.top_miner,
    split: row.split,
    productionCost: row.production_cost,
    source: SOURCES[row.source] ?? 'account',
    motherlodePool: row.motherlode_pool,
  };
}

/**
 * The indexer's rounds table and its aggregates. Every insert is idempotent (a stored
 * id is skipped) and updates the aggregates in the same transaction, for the rows it
 * actually inserted.
 */
export class RoundRepository {
  private gapCache: { key: string; gaps: GapRange[] } | undefined;

  constructor(private readonly pool: Pool) {}

  /** Stores one settled round; false when it was already stored. */
  async insertSettled(round: Round): Promise<boolean> {
    return (await this.insertMany([round])) === 1;
  }

  /**
   * Stores many rounds with one binary COPY (straight into the table when no stored
   * round lies in the batch's id range, else through a staging table and INSERT ... ON
   * CONFLICT DO NOTHING); returns how many were new.
   */
  async insertMany(rounds: readonly Round[]): Promise<number> {
    return rounds.length === 0 ? 0 : this.insertBatch(RoundBatch.of(rounds));
  }

  /** `insertMany` of rounds already encoded (an import's); the first of repeated ids wins. */
  async insertBatch(batch: RoundBatch): Promise<number> {
    if (batch.length === 0) return 0;
    const sorted = batch.sortedUnique();
    return withTransaction(this.pool, async (client) => {
      const lastId = await this.lockTotals(client);
      // The rows inserted, by index; null: all of them.
      let inserted: number[] | null = null;
      if (await this.rangeIsFree(client, sorted)) await this.copyInto(client, 'indexer.rounds', sorted);
      else inserted = await this.copyMerging(client, sorted);
      const count = inserted === null ? sorted.length : inserted.length;
      if (count > 0) await this.applyAggregates(client, sorted, inserted, lastId);
      return count;
    });
  }

  /** True when no stored round lies within the (sorted) batch's id range. */
  private async rangeIsFree(client: PoolClient, sorted: RoundBatch): Promise<boolean> {
    const { rows } = await client.query<{ taken: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM indexer.rounds WHERE id BETWEEN $1 AND $2) AS taken',
      [sorted.ids[0]!, sorted.ids[sorted.length - 1]!],
    );
    return rows[0]?.taken === false;
  }

  /** COPY into a staging table, then insert the ids not stored yet; returns their rows. */
  private async copyMerging(client: PoolClient, sorted: RoundBatch): Promise<number[]> {
    await client.query(`CREATE TEMP TABLE rounds_staging (LIKE indexer.rounds INCLUDING DEFAULTS) ON COMMIT DROP`);
    await this.copyInto(client, 'rounds_staging', sorted);
    const { rows } = await client.query<{ id: number }>(
      `INSERT INTO indexer.rounds (${COLUMN_LIST})
       SELECT ${COLUMN_LIST} FROM rounds_staging ORDER BY id
       ON CONFLICT (id) DO NOTHING RETURNING id`,
    );
    const insertedIds = new Set(rows.map((r) => r.id));
    const inserted: number[] = [];
    for (let i = 0; i < sorted.length; i++) if (insertedIds.has(sorted.ids[i]!)) inserted.push(i);
    return inserted;
  }

  private async copyInto(client: PoolClient, table: string, batch: RoundBatch): Promise<void> {
    await pipeline(
      Readable.from([batch.copyData()]),
      client.query(copyFrom(`COPY ${table} (${COLUMN_LIST}) FROM STDIN (FORMAT binary)`)),
    );
  }

  /** Locks the totals row (serialising writers) and returns the newest stored id. */
  private async lockTotals(client: PoolClient): Promise<number | null> {
    const { rows } = await client.query<{ last_id: number | null }>(
      'SELECT last_id FROM indexer.totals WHERE id = 1 FOR UPDATE',
    );
    return rows[0]?.last_id ?? null;
  }

  /** Adds the inserted rows (`inserted`: their indices, null for all) to the aggregates. */
  private async applyAggregates(client: PoolClient, sorted: RoundBatch, inserted: readonly number[] | null, lastId: number | null): Promise<void> {
    const sums = sumBatch(sorted, inserted);
    await client.query(
      `UPDATE indexer.totals SET
         rounds_indexed = rounds_indexed + $1, voided_rounds = voided_rounds + $2,
         first_id = least(first_id, $3), last_id = greatest(last_id, $4),
         total_deployed = total_deployed + $5, total_winnings = total_winnings + $6,
         settled_deployed = settled_deployed + $7, winner_return_x100 = winner_return_x100 + $8,
         lined_below = least(lined_below, $3), partial_rounds = partial_rounds + $9, updated_at = now()
       WHERE id = 1`,
      [
        sums.rounds,
        sums.voided,
        sums.firstId,
        sums.lastId,
        sums.totalDeployed.toString(),
        sums.totalWinnings.toString(),
        sums.settledDeployed.toString(),
        sums.winnerReturnX100.toString(),
        sums.partial,
      ],
    );
    await client.query(
      `UPDATE indexer.rule_totals t SET rounds = t.rounds + d.rounds, settled_deployed = t.settled_deployed + d.deployed,
              returned_x100 = t.returned_x100 + d.returned, ore_reward = t.ore_reward + d.ore, ore_value = t.ore_value + d.value
         FROM unnest($1::bigint[], $2::numeric[], $3::numeric[], $4::numeric[], $5::numeric[]) WITH ORDINALITY AS d(rounds, deployed, returned, ore, value, n)
        WHERE t.payout_rule = d.n - 1`,
      [
        sums.byRule.map((r) => r.rounds),
        sums.byRule.map((r) => r.settledDeployed.toString()),
        sums.byRule.map((r) => r.returnedX100.toString()),
        sums.byRule.map((r) => r.oreReward.toString()),
        sums.byRule.map((r) => r.oreValue.toString()),
      ],
    );
    await client.query(
      `UPDATE indexer.square_stats s SET hits = s.hits + d.hits, deployed = s.deployed + d.deployed
         FROM unnest($1::bigint[], $2::numeric[]) WITH ORDINALITY AS d(hits, deployed, n)
        WHERE s.square = d.n - 1`,
      [sums.hits, sums.deployedBySquare.map(String)],
    );
    if (lastId === null || sums.firstId > lastId) await this.advanceDroughts(client, sorted, inserted);
    else await this.recomputeDroughts(client);
  }

  /** Rounds after every stored one: advance the stored drought state in order. */
  private async advanceDroughts(client: PoolClient, sorted: RoundBatch, inserted: readonly number[] | null): Promise<void> {
    const { rows } = await client.query<{ last_hit_id: number | null; current_drought: number; max_drought: number }>(
      'SELECT last_hit_id, current_drought, max_drought FROM indexer.square_stats ORDER BY square',
    );
    const state: DroughtState[] = rows.map((r) => ({
      lastHitId: r.last_hit_id,
      currentDrought: r.current_drought,
      maxDrought: r.max_drought,
    }));
    const next = advanceDroughtsOver(state, sorted, inserted);
    await client.query(
      `UPDATE indexer.square_stats s SET last_hit_id = d.last_hit, current_drought = d.cur, max_drought = d.max
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS d(last_hit, cur, max, n)
        WHERE s.square = d.n - 1`,
      [next.map((d) => d.lastHitId), next.map((d) => d.currentDrought), next.map((d) => d.maxDrought)],
    );
  }

  /**
   * Rounds that landed before stored ones (backfill, older imports) change droughts
   * that came after them: recompute every square's droughts from the winning_square
   * column in one ordered pass, inside the inserting transaction.
   */
  private async recomputeDroughts(client: PoolClient): Promise<void> {
    await client.query(`
      WITH nv AS (
        SELECT id, winning_square AS w, row_number() OVER (ORDER BY id) AS rn
          FROM indexer.rounds WHERE winning_square IS NOT NULL
      ),
      total AS (SELECT count(*) AS n FROM nv),
      runs AS (
        SELECT w, id, rn, rn - coalesce(lag(rn) OVER (PARTITION BY w ORDER BY rn), 0) - 1 AS gap FROM nv
      ),
      per_square AS (
        SELECT sq.square, max(r.gap) AS max_gap, max(r.rn) AS last_rn, max(r.id) AS last_id
          FROM generate_series(0, 24) AS sq(square) LEFT JOIN runs r ON r.w = sq.square
         GROUP BY sq.square
      )
      UPDATE indexer.square_stats s SET
        last_hit_id = p.last_id,
        current_drought = t.n - coalesce(p.last_rn, 0),
        max_drought = greatest(coalesce(p.max_gap, 0), t.n - coalesce(p.last_rn, 0))
      FROM per_square p, total t
      WHERE p.square = s.square`);
  }

  /** Which of `ids` are stored. */
  async storedIds(ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.pool.query<{ id: number }>('SELECT id FROM indexer.rounds WHERE id = ANY($1::bigint[])', [
      ids,
    ]);
    return new Set(rows.map((r) => r.id));
  }

  /** The payout rule of the nearest stored round before `id`, or null when none is. */
  async ruleBefore(id: number): Promise<PayoutRule | null> {
    const { rows } = await this.pool.query<{ payout_rule: number }>(
      'SELECT payout_rule FROM indexer.rounds WHERE id < $1 ORDER BY id DESC LIMIT 1',
      [id],
    );
    const code = rows[0]?.payout_rule;
    return code === undefined ? null : code === PAYOUT_RULE_CODES.returns ? 'returns' : 'parimutuel';
  }

  async latestId(): Promise<number | null> {
    const { rows } = await this.pool.query<{ last_id: number | null }>('SELECT last_id FROM indexer.totals WHERE id = 1');
    return rows[0]?.last_id ?? null;
  }

  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('SELECT rounds_indexed AS n FROM indexer.totals WHERE id = 1');
    return rows[0]?.n ?? 0;
  }

  /**
   * Missing id ranges between the first and last stored round, oldest first. Free when
   * there are none (count = last - first + 1 from the totals row); otherwise one index
   * scan, cached until the totals change.
   */
  async findGaps(limit = 100): Promise<GapRange[]> {
    const { rows } = await this.pool.query<{ n: number; first_id: number | null; last_id: number | null }>(
      'SELECT rounds_indexed AS n, first_id, last_id FROM indexer.totals WHERE id = 1',
    );
    const t = rows[0];
    if (t === undefined || t.first_id === null || t.last_id === null || t.n === t.last_id - t.first_id + 1) return [];
    const key = `${t.n}:${t.first_id}:${t.last_id}:${limit}`;
    if (this.gapCache?.key === key) return this.gapCache.gaps;
    const gaps = await this.pool.query<{ from_id: number; to_id: number }>(
      `SELECT id + 1 AS from_id, next_id - 1 AS to_id
         FROM (SELECT id, lead(id) OVER (ORDER BY id) AS next_id FROM indexer.rounds) t
        WHERE next_id > id + 1 ORDER BY id LIMIT $1`,
      [limit],
    );
    const result = gaps.rows.map((g) => ({ fromId: g.from_id, toId: g.to_id }));
    this.gapCache = { key, gaps: result };
    return result;
  }

  /** Stored rounds with fromId <= id <= toId, ascending, at most `limit`. */
  async getRounds(range: { fromId?: number; toId?: number; limit?: number } = {}): Promise<Round[]> {
    const { rows } = await this.pool.query<RoundRow>(
      `SELECT ${COLUMN_LIST} FROM indexer.rounds
        WHERE id >= $1 AND id <= $2 ORDER BY id LIMIT $3`,
      [range.fromId ?? 0, range.toId ?? Number.MAX_SAFE_INTEGER, range.limit ?? 10_000],
    );
    return rows.map(rowToRound);
  }

  /**
   * Stored rounds from `fromId` up, ascending, at most `limit`, with only the fields a
   * reader of outcomes needs (the event log): a fraction of the bytes and parsing of
   * `getRounds`.
   */
  async getOutcomes(range: { fromId: number; limit: number }): Promise<RoundOutcome[]> {
    const { rows } = await this.pool.query<{ id: number; winning_square: number | null; total_deployed: number; total_miners: number | null; motherlode: number; settled_at: Date }>(
      `SELECT id, winning_square, total_deployed, total_miners, motherlode, settled_at FROM indexer.rounds
        WHERE id >= $1 ORDER BY id LIMIT $2`,
      [range.fromId, range.limit],
    );
    return rows.map((r) => ({
      id: r.id,
      winningSquare: r.winning_square,
      totalDeployed: r.total_deployed,
      totalMiners: r.total_miners,
      motherlode: r.motherlode,
      settledAt: r.settled_at.toISOString(),
    }));
  }

  /**
   * How many rounds are stored with an id at or below `id`: the totals row less the
   * rounds above it, in one statement (one snapshot), so nearly free for an id near the
   * newest (the event log's check for rounds stored below its watermark).
   */
  async countUpTo(id: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      'SELECT t.rounds_indexed - (SELECT count(*) FROM indexer.rounds WHERE id > $1) AS n FROM indexer.totals t WHERE t.id = 1',
      [id],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * For each of `ids` (ascending), how many rounds are stored with an id at or below it:
   * each stored round counted once, in one index scan up to the last id.
   */
  async countsUpTo(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<{ n: string }>(
      `WITH b AS (SELECT upto, lag(upto) OVER (ORDER BY upto) AS prev FROM unnest($1::bigint[]) AS u(upto)),
            c AS (SELECT upto, (SELECT count(*) FROM indexer.rounds r WHERE r.id <= b.upto AND (b.prev IS NULL OR r.id > b.prev)) AS k FROM b)
       SELECT sum(k) OVER (ORDER BY upto) AS n FROM c ORDER BY upto`,
      [ids],
    );
    return rows.map((r) => Number(r.n));
  }

  /** Stores the NDJSON line of up to `maxRows` rounds that have none (see writeRoundLines); returns how many. */
  writeLines(maxRows: number): Promise<number> {
    return writeRoundLines(this.pool, maxRows);
  }

  /** The rounds of an id range as an NDJSON stream (see exportRoundsNdjson); release when done. */
  exportNdjson(fromId: number, toId: number): Promise<{ stream: NodeJS.ReadableStream; release: () => void }> {
    return exportRoundsNdjson(this.pool, fromId, toId);
  }

  /** Winning squares of the newest `limit` non-voided rounds, oldest first. */
  async recentOutcomes(limit: number): Promise<{ id: number; winningSquare: number }[]> {
    const { rows } = await this.pool.query<{ id: number; winning_square: number }>(
      'SELECT id, winning_square FROM indexer.rounds WHERE winning_square IS NOT NULL ORDER BY id DESC LIMIT $1',
      [limit],
    );
    return rows.reverse().map((r) => ({ id: r.id, winningSquare: r.winning_square }));
  }

  /** The newest `limit` rounds, newest first. */
  async latest(limit: number): Promise<Round[]> {
    const { rows } = await this.pool.query<RoundRow>(`SELECT ${COLUMN_LIST} FROM indexer.rounds ORDER BY id DESC LIMIT $1`, [limit]);
    return rows.map(rowToRound);
  }

  /** One round with the ids of its nearest stored neighbours (null at the ends), or null. */
  async findWithNeighbours(id: number): Promise<{ round: Round; prevId: number | null; nextId: number | null } | null> {
    const { rows } = await this.pool.query<RoundRow & { prev_id: number | null; next_id: number | null }>(
      `SELECT ${COLUMN_LIST},
              (SELECT max(id) FROM indexer.rounds WHERE id < $1) AS prev_id,
              (SELECT min(id) FROM indexer.rounds WHERE id > $1) AS next_id
         FROM indexer.rounds WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : { round: rowToRound(row), prevId: row.prev_id, nextId: row.next_id };
  }

  async aggregates(): Promise<StoredAggregates> {
    const [totals, squares, rules] = await Promise.all([
      this.pool.query<TotalsColumns>('SELECT * FROM indexer.totals WHERE id = 1'),
      this.pool.query<SquareColumns>('SELECT * FROM indexer.square_stats ORDER BY square'),
      this.pool.query<RuleColumns>('SELECT * FROM indexer.rule_totals ORDER BY payout_rule'),
    ]);
    const t = totals.rows[0]!;
    const rule = (code: number): RuleSums => {
      const r = rules.rows.find((row) => row.payout_rule === code);
      return {
        rounds: r?.rounds ?? 0,
        settledDeployed: BigInt(r?.settled_deployed ?? 0),
        returnedX100: BigInt(r?.returned_x100 ?? 0),
        oreReward: BigInt(r?.ore_reward ?? 0),
        oreValue: BigInt(r?.ore_value ?? 0),
      };
    };
    return {
      roundsIndexed: t.rounds_indexed,
      voidedRounds: t.voided_rounds,
      firstId: t.first_id,
      lastId: t.last_id,
      totalDeployed: BigInt(t.total_deployed),
      totalWinnings: BigInt(t.total_winnings),
      settledDeployed: BigInt(t.settled_deployed),
      winnerReturnX100: BigInt(t.winner_return_x100),
      updatedAt: t.updated_at,
      byRule: { parimutuel: rule(PAYOUT_RULE_CODES.parimutuel), returns: rule(PAYOUT_RULE_CODES.returns) },
      squares: squares.rows.map((s) => ({
        square: s.square,
        hits: s.hits,
        deployed: BigInt(s.deployed),
        lastHitId: s.last_hit_id,
        currentDrought: s.current_drought,
        maxDrought: s.max_drought,
      })),
    };
  }
}

// The aggregate tables' rows as pg returns them: bigint columns arrive as strings.
type Int8 = string | number;
interface TotalsColumns {
  readonly rounds_indexed: number;
  readonly voided_rounds: number;
  readonly first_id: number | null;
  readonly last_id: number | null;
  readonly total_deployed: Int8;
  readonly total_winnings: Int8;
  readonly settled_deployed: Int8;
  readonly winner_return_x100: Int8;
  readonly updated_at: Date;
}
interface SquareColumns {
  readonly square: number;
  readonly hits: number;
  readonly deployed: Int8;
  readonly last_hit_id: number | null;
  readonly current_drought: number;
  readonly max_drought: number;
}
interface RuleColumns {
  readonly payout_rule: number;
  readonly rounds: number;
  readonly settled_deployed: Int8;
  readonly returned_x100: Int8;
  readonly ore_reward: Int8;
  readonly ore_value: Int8;
}
