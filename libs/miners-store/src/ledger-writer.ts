import { decodeBase58, encodeBase58, type MinerRows } from '@gridlab/chain';
import type { MinerSort } from '@gridlab/contracts';
import { withTransaction, type Pool, type PoolClient } from '@gridlab/db';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { CopyRows } from './copy-rows';
import { SORT_CODES, SUMMED_WINDOWS, TOP_MAX, WINDOW_CODES, windowTopSql } from './tops';
import { BLOCK_ROUNDS, blockStartOf, decodeBlock, encodeBlock } from './block';
import { FoldSums } from './fold-sums';
import { FOLD_SQL, rollupsStatement } from './rollup-sql';
import { emptyStoredRow, toStored, type StoredRow } from './row';

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
/** Wallet ids the writer keeps in memory (~100 bytes each): a month of mainnet's wallets. */
const WALLETS_CACHED = 200_000;
/** Hourly rollups are kept this long (the 24 h window and the hourly series). */
const HOURS_KEPT = 48;

/** Columns of `miner_rounds_recent` widest first, in the order `CopyRows` writes them. */
export const STORED_COLUMN_LIST =
  'amount, sol_back, ore, ore_motherlode, admin_fee, protocol_fee, ore_value, round_id, miner_id, squares, signer_id, network_fee, priority_fee, ' +
  'executor_fee, checkpoint_deposit, slots_left, slots_left_last, deploys, strategy, flags, amounts';

/** The UTC day and hour (since the epoch) a round's rows are rolled up in. */
const dayOf = (at: Date) => Math.floor(at.getTime() / 86_400_000);
const hourOf = (at: Date) => Math.floor(at.getTime() / 3_600_000);

function amountsOf(bytes: Buffer | null): number[] | null {
  if (bytes === null) return null;
  const out: number[] = [];
  for (let o = 0; o + 8 <= bytes.length; o += 8) out.push(Number(bytes.readBigInt64BE(o)));
  return out;
}


/** A settled round and its miners' rows. */
export interface LedgerEntry {
  readonly round: LedgerRound;
  readonly miners: MinerRows;
}

/**
 * The indexer's writes of the ledger: a settled round's miner rows with its rollups, in
 * one transaction and once (a round already written is left as it is), or the rows now
 * and the rollups at a later fold (history); the daily compaction of closed blocks; the
 * hourly rollups' expiry.
 */
export class MinerLedgerWriter {
  /** Wallet ids already read (an id never changes): a round's wallets are mostly ones seen before. */
  private readonly walletIds = new Map<string, number>();
  /** Rollups of the rows this writer wrote with `deferRollups` and not yet folded. */
  private unfolded = new FoldSums();

  constructor(
    private readonly pool: Pool,
    /** The clock the 48 hours of hourly rollups count from. */
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Stores a settled round's miners; false when they were stored already. */
  async writeRound(round: LedgerRound, miners: MinerRows): Promise<boolean> {
    return (await this.writeRounds([{ round, miners }])).has(round.id);
  }

  /**
   * Stores rounds' miners in one transaction (the history fill writes a chunk at a time),
   * each round once: returns the ids of the rounds written now, not those already stored.
   * With `deferRollups`, the rounds' rows are added to the rollups by a later
   * `foldRollups` (listed for it in the same transaction), not now: the history fill
   * folds many chunks at once, each wallet's day and total rows rewritten once instead of
   * once per chunk.
   */
  async writeRounds(entries: readonly LedgerEntry[], options: { readonly deferRollups?: boolean } = {}): Promise<Set<number>> {
    if (entries.length === 0) return new Set();
    // Ids of wallets read or inserted in the transaction, kept once it commits (a rolled back insert's id names nothing).
    const seen = new Map<string, number>();
    // The deferred rows' rollups, summed as the rows are made (FoldSums), held once the rows are committed.
    const sums = options.deferRollups === true ? new FoldSums() : null;
    const oldestHour = hourOf(this.now()) - HOURS_KEPT;
    const stored = await withTransaction(this.pool, async (client) => {
      const { minerIds, signerIds } = await this.idsOf(client, entries, seen);
      const walletLists = minerIds.map((ids) => ids.join(','));
      const { rows: fresh } = await client.query<{ round_id: number }>(
        `INSERT INTO indexer.miner_round_sets (round_id, settled_at, miner_ids)
         SELECT r, t, string_to_array(m, ',')::int4[] FROM unnest($1::int4[], $2::timestamptz[], $3::text[]) AS u(r, t, m)
         ON CONFLICT DO NOTHING RETURNING round_id`,
        [entries.map((e) => e.round.id), entries.map((e) => e.round.settledAt), walletLists],
      );
      const written = new Set(fresh.map((r) => r.round_id));
      // Each row is encoded as it is made and not kept (only the rollups of rounds written
      // with them need the rows after): a chunk's rows are not held while the COPY runs.
      let total = 0;
      for (const { miners } of entries) total += miners.length;
      const copy = new CopyRows(total);
      const rolled: StoredRow[] = [];
      const days = new Map<number, number>();
      const hours = new Map<number, number>();
      const prices = await orePrices(client, entries.map((e) => dayOf(e.round.settledAt)));
      const scratch = emptyStoredRow();
      for (const [k, { round, miners }] of entries.entries()) {
        if (!written.has(round.id) || miners.length === 0) continue;
        const [day, hour] = [dayOf(round.settledAt), hourOf(round.settledAt)];
        days.set(round.id, day);
        hours.set(round.id, hour);
        sums?.round(round.id, day, hour, oldestHour);
        const price = prices.get(day) ?? round.productionCost;
        for (let i = 0; i < miners.length; i++) {
          const top = miners.figure(i, 'oreTopMiner');
          const ore = top === null ? null : top + (miners.figure(i, 'oreSplit') ?? 0) + (miners.figure(i, 'oreMotherlode') ?? 0);
          const value = ore === null ? null : price === null ? 0 : Math.floor((ore * price) / ONE_ORE);
          const row = toStored(miners, i, minerIds[k]![i]!, signerIds[k]![i]!, value, sums === null ? undefined : scratch);
          copy.add(row);
          if (sums !== null) sums.add(row);
          else rolled.push(row);
        }
      }
      if (copy.empty) return written;
      await pipeline(Readable.from([copy.finish()]), client.query(copyFrom(`COPY indexer.miner_rounds_recent (${STORED_COLUMN_LIST}) FROM STDIN (FORMAT binary)`)));
      if (sums !== null) {
        await client.query('INSERT INTO indexer.miner_unfolded_rounds (round_id) SELECT unnest($1::int4[])', [[...days.keys()]]);
        return written;
      }
      // Hourly rollups are kept for 48 hours: older rounds (history) go to the days and totals only.
      const rollups = rollupsStatement(rolled, days, hours, oldestHour);
      await client.query(rollups.text, rollups.values);
      return written;
    });
    if (this.walletIds.size + seen.size > WALLETS_CACHED) this.walletIds.clear();
    for (const [a, id] of seen) this.walletIds.set(a, id);
    if (sums !== null) this.unfolded.merge(sums);
    return stored;
  }

  /**
   * Adds the rows of every round written with `deferRollups` to the rollups, exactly as
   * they would have been added when written (hourly rollups for rows of the last 48 hours
   * at this fold), in one transaction that also unlists the rounds; how many rows. The
   * rounds are claimed by deleting their listing: a second fold at once waits for the
   * first to commit and finds them gone, so no row is counted twice. Rounds this writer
   * wrote are added from the sums it made as it wrote them when it claims all of them;
   * every other claimed round (another writer's, or one of a fold that failed) is summed
   * from its stored rows.
   */
  async foldRollups(): Promise<number> {
    const mine = this.unfolded;
    this.unfolded = new FoldSums();
    try {
      return await withTransaction(this.pool, async (client) => {
        const { rows: claimed } = await client.query<{ round_id: number }>('DELETE FROM indexer.miner_unfolded_rounds RETURNING round_id');
        if (claimed.length === 0) return 0;
        // A thousand rounds' rows (~450,000 on mainnet) in one statement: its estimated cost
        // sets off JIT compilation, which took longer (~4 s) than the statement; and its
        // per-wallet sums (~10 MB) spilled to disk at the default work_mem.
        await client.query("SET LOCAL jit = off; SET LOCAL work_mem = '64MB'");
        const ids = new Set(claimed.map((r) => r.round_id));
        const fromSums = mine.rounds.size > 0 && [...mine.rounds].every((id) => ids.has(id));
        const oldestHour = hourOf(this.now()) - HOURS_KEPT;
        let n = 0;
        const summed = fromSums ? mine.statement(oldestHour) : null;
        if (summed !== null) n += (await client.query<{ n: number }>(summed.text, summed.values)).rows[0]!.n;
        const rest = fromSums ? [...ids].filter((id) => !mine.rounds.has(id)) : [...ids];
        if (rest.length === 0) return n;
        const { rows: rounds } = await client.query<{ round_id: number; settled_at: Date }>(
          'SELECT round_id, settled_at FROM indexer.miner_round_sets WHERE round_id = ANY($1::int4[])',
          [rest],
        );
        const { rows } = await client.query<{ n: number }>(FOLD_SQL, [
          rounds.map((r) => r.round_id),
          rounds.map((r) => dayOf(r.settled_at)),
          rounds.map((r) => hourOf(r.settled_at)),
          oldestHour,
        ]);
        return n + rows[0]!.n;
      });
    } catch (error) {
      // Nothing was folded: the sums stay for the next fold, with any made meanwhile.
      mine.merge(this.unfolded);
      this.unfolded = mine;
      throw error;
    }
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

  /**
   * The ids of each entry's wallets and signers, row by row, from memory or PostgreSQL
   * (inserting new wallets); those read from PostgreSQL also go to `seen`.
   */
  private async idsOf(client: PoolClient, entries: readonly LedgerEntry[], seen: Map<string, number>): Promise<{ minerIds: Int32Array[]; signerIds: Int32Array[] }> {
    const unknown = new Set<string>();
    const minerIds: Int32Array[] = [];
    const signerIds: Int32Array[] = [];
    for (const { miners } of entries) {
      const [m, s] = [new Int32Array(miners.length), new Int32Array(miners.length)];
      for (let i = 0; i < miners.length; i++) {
        m[i] = this.walletIds.get(miners.address(i)) ?? -1;
        s[i] = this.walletIds.get(miners.signer(i)) ?? -1;
        if (m[i] === -1) unknown.add(miners.address(i));
        if (s[i] === -1) unknown.add(miners.signer(i));
      }
      minerIds.push(m);
      signerIds.push(s);
    }
    if (unknown.size === 0) return { minerIds, signerIds };
    for (const [a, id] of await walletIds(client, [...unknown])) seen.set(a, id);
    for (const [k, { miners }] of entries.entries()) {
      for (let i = 0; i < miners.length; i++) {
        if (minerIds[k]![i] === -1) minerIds[k]![i] = seen.get(miners.address(i))!;
        if (signerIds[k]![i] === -1) signerIds[k]![i] = seen.get(miners.signer(i))!;
      }
    }
    return { minerIds, signerIds };
  }

  /** Which of `ids` have their miners stored. */
  async storedRounds(ids: readonly number[]): Promise<Set<number>> {
    const { rows } = await this.pool.query<{ round_id: number }>('SELECT round_id FROM indexer.miner_round_sets WHERE round_id = ANY($1::int4[])', [ids]);
    return new Set(rows.map((r) => r.round_id));
  }

  /**
   * Packs the recent rows of every block that ended at least a block before `newestRound`
   * into one row per wallet and block (merged with what the block already holds: history
   * filled late lands in old blocks), then deletes them; one block per transaction. Rows of
   * rounds not yet added to the rollups stay (packed once folded: the fold reads the recent
   * rows). How many rows it packed.
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
        `DELETE FROM indexer.miner_rounds_recent x WHERE round_id >= $1 AND round_id < $2
           AND NOT EXISTS (SELECT 1 FROM indexer.miner_unfolded_rounds u WHERE u.round_id = x.round_id) RETURNING ${STORED_COLUMN_LIST}`,
        [start, start + BLOCK_ROUNDS],
      );
      if (rows.length === 0) return 0;
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

  /**
   * Sums the top miners of every window (24 h, 7 d, 30 d) and sort from the rollups at `now`
   * and replaces the lists the gateway reads, in one transaction: a window's top is then one
   * index read, however many wallets played in it.
   */
  async refreshTops(now: Date): Promise<void> {
    const lists: { win: number; sort: number; rows: { miner_id: number; rounds: number; deployed: number; net: number; ore: number }[] }[] = [];
    for (const window of SUMMED_WINDOWS) {
      for (const sort of Object.keys(SORT_CODES) as MinerSort[]) {
        const { rows } = await this.pool.query<{ miner_id: number; rounds: number; deployed: number; net: number; ore: number }>(windowTopSql(sort, window, TOP_MAX, now));
        lists.push({ win: WINDOW_CODES[window], sort: SORT_CODES[sort], rows });
      }
    }
    await withTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM indexer.miner_tops');
      const flat = lists.flatMap((l) => l.rows.map((r, i) => ({ ...r, win: l.win, sort: l.sort, rank: i + 1 })));
      if (flat.length === 0) return;
      await client.query(
        `INSERT INTO indexer.miner_tops (win, sort, rank, miner_id, rounds, deployed, net, ore, refreshed_at)
         SELECT w, s, k, m, r, d, n, o, $9 FROM unnest($1::int2[], $2::int2[], $3::int2[], $4::int4[], $5::int4[], $6::int8[], $7::int8[], $8::int8[]) AS u(w, s, k, m, r, d, n, o)`,
        [flat.map((r) => r.win), flat.map((r) => r.sort), flat.map((r) => r.rank), flat.map((r) => r.miner_id), flat.map((r) => r.rounds), flat.map((r) => r.deployed), flat.map((r) => r.net), flat.map((r) => r.ore), now],
      );
    });
  }

  /** Drops the hourly rollups older than 48 hours; how many rows. */
  async expireHours(now: Date): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM indexer.miner_hours WHERE hour < $1', [hourOf(now) - HOURS_KEPT]);
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
  const ids = new Map<string, number>();
  const bytes = addresses.map((a) => Buffer.from(decodeBase58(a)));
  const { rows: known } = await client.query<{ id: number; address: Buffer }>('SELECT id, address FROM indexer.wallets WHERE address = ANY($1::bytea[])', [bytes]);
  for (const r of known) ids.set(encodeBase58(r.address), r.id);
  // Sorted, so concurrent writers take the unique index's locks in one order.
  const missing = bytes.filter((_, i) => !ids.has(addresses[i]!)).sort((a, b) => Buffer.compare(a, b));
  if (missing.length === 0) return ids;
  await client.query('INSERT INTO indexer.wallets (address) SELECT unnest($1::bytea[]) ON CONFLICT (address) DO NOTHING', [missing]);
  const { rows: added } = await client.query<{ id: number; address: Buffer }>('SELECT id, address FROM indexer.wallets WHERE address = ANY($1::bytea[])', [missing]);
  for (const r of added) ids.set(encodeBase58(r.address), r.id);
  return ids;
}

/** The operator's ORE prices of `days` (lamports per ORE), where given. */
async function orePrices(client: PoolClient, days: readonly number[]): Promise<Map<number, number>> {
  const { rows } = await client.query<{ day: number; lamports_per_ore: number }>('SELECT day, lamports_per_ore FROM indexer.ore_prices WHERE day = ANY($1::int4[])', [[...new Set(days)]]);
  return new Map(rows.map((r) => [r.day, r.lamports_per_ore]));
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
