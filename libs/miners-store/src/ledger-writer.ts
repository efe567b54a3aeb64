import type { MinerRound } from '@gridlab/contracts';
import { withTransaction, type Pool, type PoolClient } from '@gridlab/db';
import bs58 from 'bs58';
import { BLOCK_ROUNDS, blockStartOf, decodeBlock, encodeBlock } from './block';
import { ROLLUP_COLUMNS, rollupOf, type Rollup } from './rollup';
import { toStored, type StoredRow } from './row';

/** What the ledger needs of a settled round besides its miners. */
export interface LedgerRound {
  readonly id: number;
  readonly settledAt: Date;
  /** Lamports per whole ORE at settlement (952-byte rounds read live), the ORE's price where the operator gave none. */
  readonly productionCost: number | null;
}

const ONE_ORE = 100_000_000_000;
/** Weekly partitions of the blocks: 7 blocks of 1,440 rounds. */
export const PARTITION_ROUNDS = 7 * BLOCK_ROUNDS;
/** Hourly rollups are kept this long (the 24 h window and the hourly series). */
const HOURS_KEPT = 48;

const STORED_COLUMNS = [
  ['amount', 'int8'], ['sol_back', 'int8'], ['ore', 'int8'], ['ore_motherlode', 'int8'], ['admin_fee', 'int8'], ['protocol_fee', 'int8'], ['ore_value', 'int8'],
  ['round_id', 'int4'], ['miner_id', 'int4'], ['squares', 'int4'], ['signer_id', 'int4'], ['network_fee', 'int4'], ['priority_fee', 'int4'],
  ['executor_fee', 'int4'], ['checkpoint_deposit', 'int4'], ['slots_left', 'int2'], ['slots_left_last', 'int2'], ['deploys', 'int2'],
  ['strategy', 'int2'], ['flags', 'int2'], ['amounts', 'bytea'],
] as const;

function storedValues(r: StoredRow): unknown[] {
  return [
    r.amount, r.solBack, r.ore, r.oreMotherlode, r.adminFee, r.protocolFee, r.oreValue, r.roundId, r.minerId, r.squares, r.signerId, r.networkFee,
    r.priorityFee, r.executorFee, r.checkpointDeposit, r.slotsLeft, r.slotsLeftLast, r.deploys, r.strategy, r.flags,
    r.amounts === null ? null : amountsBytes(r.amounts),
  ];
}

function amountsBytes(amounts: readonly number[]): Buffer {
  const b = Buffer.alloc(8 * amounts.length);
  amounts.forEach((a, i) => b.writeBigInt64BE(BigInt(a), 8 * i));
  return b;
}

function amountsOf(bytes: Buffer | null): number[] | null {
  if (bytes === null) return null;
  const out: number[] = [];
  for (let o = 0; o + 8 <= bytes.length; o += 8) out.push(Number(bytes.readBigInt64BE(o)));
  return out;
}

/** Columns of `miner_rounds_recent`, in the order `storedValues` gives them. */
export const STORED_COLUMN_LIST = STORED_COLUMNS.map(([c]) => c).join(', ');

const UNNEST_ROWS = `SELECT * FROM unnest(${STORED_COLUMNS.map(([, t], i) => `$${i + 1}::${t}[]`).join(', ')})`;
const ROLLUP_TYPES = ['int4', 'int4', 'int4', 'int4', 'int4', 'int4', 'int4', 'int4', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'text'] as const;

/** `t.c + excluded.c` for every summed column; first/last round by least/greatest; the histogram element-wise. */
const ROLLUP_SET = ROLLUP_COLUMNS.map((c) =>
  c === 'first_round'
    ? `${c} = least(t.${c}, excluded.${c})`
    : c === 'last_round'
      ? `${c} = greatest(t.${c}, excluded.${c})`
      : c === 'slots_hist'
        ? `${c} = ARRAY(SELECT a + b FROM unnest(t.${c}, excluded.${c}) AS h(a, b))`
        : `${c} = t.${c} + excluded.${c}`,
).join(', ');

function rollupValues(r: Rollup): unknown[] {
  return [
    r.rounds, r.deploys, r.wins, r.topWins, r.motherlodeHits, r.unknown, r.firstRound, r.lastRound, r.deployed, r.solBack, r.adminFee, r.protocolFee,
    r.networkFee, r.priorityFee, r.executorFee, r.checkpointDeposits, r.oreTop, r.oreSplit, r.oreMotherlode, r.oreValue, `{${r.slotsHist.join(',')}}`,
  ];
}

/** One round's rollup rows into `table` keyed by `key` (null: the all-time table): one statement. */
function rollupUpsert(table: string, key: { readonly column: string; readonly value: number } | null, rollups: readonly { minerId: number; rollup: Rollup }[]): { text: string; values: unknown[] } {
  const columns = rollupValues(rollups[0]!.rollup).map((_, i) => rollups.map((r) => rollupValues(r.rollup)[i]));
  const params = [rollups.map((r) => r.minerId), ...columns];
  const select = `SELECT ${key === null ? '' : `${key.value}::int4, `}m, ${ROLLUP_COLUMNS.map((c, i) => (c === 'slots_hist' ? `c${i}::int4[]` : `c${i}`)).join(', ')}
    FROM unnest($1::int4[], ${ROLLUP_TYPES.map((t, i) => `$${i + 2}::${t}[]`).join(', ')}) AS u(m, ${ROLLUP_COLUMNS.map((_, i) => `c${i}`).join(', ')})`;
  const conflict = key === null ? '(miner_id)' : `(miner_id, ${key.column})`;
  return {
    text: `INSERT INTO indexer.${table} AS t (${key === null ? '' : `${key.column}, `}miner_id, ${ROLLUP_COLUMNS.join(', ')}) ${select}
      ON CONFLICT ${conflict} DO UPDATE SET ${ROLLUP_SET}`,
    values: params,
  };
}

/**
 * The indexer's writes of the ledger: a settled round's miner rows with its rollups, in
 * one transaction and once (a round already written is left as it is); the daily
 * compaction of closed blocks; the hourly rollups' expiry.
 */
export class MinerLedgerWriter {
  constructor(private readonly pool: Pool) {}

  /** Stores a settled round's miners; false when they were stored already. */
  async writeRound(round: LedgerRound, miners: readonly MinerRound[]): Promise<boolean> {
    return withTransaction(this.pool, async (client) => {
      const addresses = new Set<string>();
      for (const m of miners) addresses.add(m.address).add(m.signer);
      const ids = await walletIds(client, [...addresses]);
      const minerIds = miners.map((m) => ids.get(m.address)!);
      const { rowCount } = await client.query('INSERT INTO indexer.miner_round_sets (round_id, settled_at, miner_ids) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        round.id,
        round.settledAt,
        minerIds,
      ]);
      if (rowCount === 0) return false;
      if (miners.length === 0) return true;
      const day = Math.floor(round.settledAt.getTime() / 86_400_000);
      const hour = Math.floor(round.settledAt.getTime() / 3_600_000);
      const price = await orePrice(client, day, round.productionCost);
      const rows = miners.map((m, i) => {
        const ore = m.oreTopMiner === null ? null : (m.oreTopMiner ?? 0) + (m.oreSplit ?? 0) + (m.oreMotherlode ?? 0);
        const value = ore === null ? null : price === null ? 0 : Math.floor((ore * price) / ONE_ORE);
        return toStored(m, minerIds[i]!, ids.get(m.signer)!, value);
      });
      const values = storedValues(rows[0]!).map((_, c) => rows.map((r) => storedValues(r)[c]));
      await client.query(`INSERT INTO indexer.miner_rounds_recent (${STORED_COLUMN_LIST}) ${UNNEST_ROWS}`, values);
      const rollups = rows.map((r) => ({ minerId: r.minerId, rollup: rollupOf(r) }));
      for (const q of [rollupUpsert('miner_days', { column: 'day', value: day }, rollups), rollupUpsert('miner_hours', { column: 'hour', value: hour }, rollups), rollupUpsert('miner_totals', null, rollups)]) {
        await client.query(q.text, q.values);
      }
      return true;
    });
  }

  /** Stored rounds in [fromId, toId] whose miners are not stored, newest first, at most `limit`, none of `skip`. */
  async pendingRounds(fromId: number, toId: number, limit: number, skip: readonly number[] = []): Promise<number[]> {
    const { rows } = await this.pool.query<{ id: number }>(
      `SELECT id FROM indexer.rounds r WHERE id BETWEEN $1 AND $2 AND NOT (id = ANY($4::int8[]))
         AND NOT EXISTS (SELECT 1 FROM indexer.miner_round_sets s WHERE s.round_id = r.id)
       ORDER BY id DESC LIMIT $3`,
      [fromId, toId, limit, skip],
    );
    return rows.map((r) => r.id);
  }

  /** The oldest and newest stored round ids; null when none is stored. */
  async storedRoundRange(): Promise<{ first: number; last: number } | null> {
    const { rows } = await this.pool.query<{ first: number | null; last: number | null }>('SELECT min(id) AS first, max(id) AS last FROM indexer.rounds');
    const r = rows[0]!;
    return r.first === null || r.last === null ? null : { first: r.first, last: r.last };
  }

  /** Which of `ids` have their miners stored. */
  async storedRounds(ids: readonly number[]): Promise<Set<number>> {
    const { rows } = await this.pool.query<{ round_id: number }>('SELECT round_id FROM indexer.miner_round_sets WHERE round_id = ANY($1::int4[])', [ids]);
    return new Set(rows.map((r) => r.round_id));
  }

  /**
   * Packs the recent rows of every block that ended at least a block before `newestRound`
   * into one row per wallet and block (merged with what the block already holds: history
   * filled late lands in old blocks), then deletes them; one block per transaction. How
   * many rows it packed.
   */
  async compact(newestRound: number): Promise<number> {
    const limit = blockStartOf(newestRound) - BLOCK_ROUNDS;
    const { rows: starts } = await this.pool.query<{ block_start: number }>(
      `SELECT DISTINCT round_id - round_id % ${BLOCK_ROUNDS} AS block_start FROM indexer.miner_rounds_recent WHERE round_id < $1 ORDER BY 1`,
      [limit],
    );
    let packed = 0;
    for (const { block_start: start } of starts) packed += await this.compactBlock(start);
    return packed;
  }

  private async compactBlock(start: number): Promise<number> {
    await this.ensurePartition(start);
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<Record<string, unknown>>(
        `DELETE FROM indexer.miner_rounds_recent WHERE round_id >= $1 AND round_id < $2 RETURNING ${STORED_COLUMN_LIST}`,
        [start, start + BLOCK_ROUNDS],
      );
      const byMiner = new Map<number, StoredRow[]>();
      for (const r of rows) {
        const row = fromSql(r);
        let list = byMiner.get(row.minerId);
        if (list === undefined) byMiner.set(row.minerId, (list = []));
        list.push(row);
      }
      const minerIds = [...byMiner.keys()];
      const { rows: existing } = await client.query<{ miner_id: number; rounds: number; data: Buffer }>(
        'SELECT miner_id, rounds, data FROM indexer.miner_blocks WHERE block_start = $1 AND miner_id = ANY($2::int4[]) FOR UPDATE',
        [start, minerIds],
      );
      for (const e of existing) byMiner.get(e.miner_id)!.push(...decodeBlock(e.miner_id, start, e.rounds, e.data));
      const datas: Buffer[] = [];
      const counts: number[] = [];
      for (const id of minerIds) {
        const list = byMiner.get(id)!.sort((a, b) => a.roundId - b.roundId);
        datas.push(encodeBlock(start, list));
        counts.push(list.length);
      }
      await client.query(
        `INSERT INTO indexer.miner_blocks (block_start, miner_id, rounds, data) SELECT $1, * FROM unnest($2::int4[], $3::int2[], $4::bytea[])
         ON CONFLICT (miner_id, block_start) DO UPDATE SET rounds = excluded.rounds, data = excluded.data`,
        [start, minerIds, counts, datas],
      );
      return rows.length;
    });
  }

  /** The weekly partition holding `blockStart`, created when missing (a row above 128 bytes is compressed inline or moved to TOAST). */
  async ensurePartition(blockStart: number): Promise<void> {
    const from = blockStart - (blockStart % PARTITION_ROUNDS);
    await this.pool.query(
      `CREATE TABLE IF NOT EXISTS indexer.miner_blocks_r${from} PARTITION OF indexer.miner_blocks FOR VALUES FROM (${from}) TO (${from + PARTITION_ROUNDS}) WITH (toast_tuple_target = 128)`,
    );
  }

  /** Drops the hourly rollups older than 48 hours; how many rows. */
  async expireHours(now: Date): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM indexer.miner_hours WHERE hour < $1', [Math.floor(now.getTime() / 3_600_000) - HOURS_KEPT]);
    return rowCount ?? 0;
  }

  /** Sets the ORE price of UTC days (lamports per whole ORE): the value of the ORE of rounds written from then on. */
  async setOrePrices(prices: readonly { readonly day: string; readonly lamportsPerOre: number }[]): Promise<void> {
    const days = prices.map((p) => Math.floor(Date.parse(`${p.day}T00:00:00Z`) / 86_400_000));
    if (days.some((d) => !Number.isFinite(d))) throw new RangeError('a day is not YYYY-MM-DD');
    await this.pool.query(
      `INSERT INTO indexer.ore_prices (day, lamports_per_ore) SELECT * FROM unnest($1::int4[], $2::int8[])
       ON CONFLICT (day) DO UPDATE SET lamports_per_ore = excluded.lamports_per_ore`,
      [days, prices.map((p) => p.lamportsPerOre)],
    );
  }
}

async function walletIds(client: PoolClient, addresses: readonly string[]): Promise<Map<string, number>> {
  const bytes = addresses.map((a) => Buffer.from(bs58.decode(a)));
  // Sorted, so concurrent writers take the unique index's locks in one order.
  const order = bytes.map((_, i) => i).sort((a, b) => Buffer.compare(bytes[a]!, bytes[b]!));
  await client.query('INSERT INTO indexer.wallets (address) SELECT unnest($1::bytea[]) ON CONFLICT (address) DO NOTHING', [order.map((i) => bytes[i])]);
  const { rows } = await client.query<{ id: number; address: Buffer }>('SELECT id, address FROM indexer.wallets WHERE address = ANY($1::bytea[])', [bytes]);
  const ids = new Map<string, number>();
  for (const r of rows) ids.set(bs58.encode(r.address), r.id);
  return ids;
}

async function orePrice(client: PoolClient, day: number, productionCost: number | null): Promise<number | null> {
  const { rows } = await client.query<{ lamports_per_ore: number }>('SELECT lamports_per_ore FROM indexer.ore_prices WHERE day = $1', [day]);
  return rows[0]?.lamports_per_ore ?? productionCost;
}

/** A `miner_rounds_recent` row as pg returns it. */
export function fromSql(r: Record<string, unknown>): StoredRow {
  return {
    roundId: r['round_id'] as number,
    minerId: r['miner_id'] as number,
    signerId: r['signer_id'] as number,
    squares: r['squares'] as number | null,
    amount: r['amount'] as number | null,
    amounts: amountsOf(r['amounts'] as Buffer | null),
    solBack: r['sol_back'] as number | null,
    ore: r['ore'] as number | null,
    oreMotherlode: r['ore_motherlode'] as number | null,
    adminFee: r['admin_fee'] as number | null,
    protocolFee: r['protocol_fee'] as number | null,
    oreValue: r['ore_value'] as number | null,
    networkFee: r['network_fee'] as number | null,
    priorityFee: r['priority_fee'] as number | null,
    executorFee: r['executor_fee'] as number | null,
    checkpointDeposit: r['checkpoint_deposit'] as number | null,
    slotsLeft: r['slots_left'] as number,
    slotsLeftLast: r['slots_left_last'] as number,
    deploys: r['deploys'] as number,
    strategy: r['strategy'] as number,
    flags: r['flags'] as number,
  };
}
