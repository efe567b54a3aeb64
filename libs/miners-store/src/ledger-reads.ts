import { decodeBase58, encodeBase58 } from '@gridlab/chain';
import type { MinerBucket, MinerPerformance, MinerRound, MinerSort, MinerSummary, MinerWindowName, RoundMiners, TopMiners } from '@gridlab/contracts';
import type { Pool } from '@gridlab/db';
import { blockStartOf, decodeBlock } from './block';
import { STORED_COLUMN_LIST, fromSql } from './ledger-writer';
import type { MinerLedgerReads, MinerRoundPage } from './ports';
import { ROLLUP_COLUMNS, addRollup, emptyRollup, toWindow, type Rollup } from './rollup';
import { toWire, type StoredRow } from './row';
import { SORT_CODES, WINDOW_CODES, windowTopSql } from './tops';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Rows a ledger export reads at once (one block of a whale is up to 1,440). */
const EXPORT_BATCH = 2_000;
/** Round ids are int4: below this, every round. */
const EVERY_ROUND = 2_147_483_647;

/** A rollup row as pg returns it (its key columns besides). */
type RollupSql = Record<(typeof ROLLUP_COLUMNS)[number], number & number[]> & { readonly k?: number; readonly bucket?: number | null };

const ROLLUP_LIST = ROLLUP_COLUMNS.join(', ');

function rollupFrom(r: RollupSql): Rollup {
  return {
    rounds: r.rounds,
    deploys: r.deploys,
    wins: r.wins,
    topWins: r.top_wins,
    motherlodeHits: r.motherlode_hits,
    unknown: r.unknown,
    firstRound: r.first_round,
    lastRound: r.last_round,
    deployed: r.deployed,
    solBack: r.sol_back,
    adminFee: r.admin_fee,
    protocolFee: r.protocol_fee,
    networkFee: r.network_fee,
    priorityFee: r.priority_fee,
    executorFee: r.executor_fee,
    checkpointDeposits: r.checkpoint_deposits,
    oreTop: r.ore_top,
    oreSplit: r.ore_split,
    oreMotherlode: r.ore_motherlode,
    oreValue: r.ore_value,
    slotsHist: [...r.slots_hist],
  };
}


/** The gateway's reads of the ledger (docs/miner-ledger-storage.md, "Reads"). */
export class MinerLedgerStore implements MinerLedgerReads {
  constructor(private readonly pool: Pool) {}

  private async minerId(address: string): Promise<number | null> {
    let bytes: Uint8Array;
    try {
      bytes = decodeBase58(address);
    } catch {
      return null;
    }
    if (bytes.length !== 32) return null;
    const { rows } = await this.pool.query<{ id: number }>('SELECT id FROM indexer.wallets WHERE address = $1', [Buffer.from(bytes)]);
    return rows[0]?.id ?? null;
  }

  async summary(address: string, now: Date): Promise<Omit<MinerSummary, 'claimable'> | null> {
    const id = await this.minerId(address);
    if (id === null) return null;
    const hour = Math.floor(now.getTime() / HOUR_MS);
    const day = Math.floor(now.getTime() / DAY_MS);
    const { rows } = await this.pool.query<RollupSql>(
      `SELECT 0 AS k, NULL::int4 AS bucket, ${ROLLUP_LIST} FROM indexer.miner_totals WHERE miner_id = $1
       UNION ALL SELECT 1, hour, ${ROLLUP_LIST} FROM indexer.miner_hours WHERE miner_id = $1 AND hour > $2
       UNION ALL SELECT 2, day, ${ROLLUP_LIST} FROM indexer.miner_days WHERE miner_id = $1 AND day > $3`,
      [id, hour - 24, day - 30],
    );
    if (!rows.some((r) => r.k === 0)) return null;
    const windows = { all: emptyRollup(), '24h': emptyRollup(), '7d': emptyRollup(), '30d': emptyRollup() };
    for (const r of rows) {
      const rollup = rollupFrom(r);
      if (r.k === 0) addRollup(windows.all, rollup);
      else if (r.k === 1) addRollup(windows['24h'], rollup);
      else {
        addRollup(windows['30d'], rollup);
        if (r.bucket! > day - 7) addRollup(windows['7d'], rollup);
      }
    }
    return { address, all: toWindow(windows.all), '24h': toWindow(windows['24h']), '7d': toWindow(windows['7d']), '30d': toWindow(windows['30d']) };
  }

  async rounds(address: string, options: { readonly before?: number; readonly limit: number }): Promise<MinerRoundPage | null> {
    const id = await this.minerId(address);
    if (id === null) return null;
    const rows: StoredRow[] = [];
    for await (const batch of this.storedRows(id, options.before ?? EVERY_ROUND, options.limit + 1)) {
      rows.push(...batch);
      if (rows.length > options.limit) break;
    }
    const page = rows.slice(0, options.limit);
    const more = rows.length > options.limit;
    return { rounds: await this.toWire(address, page), nextBefore: more ? page[page.length - 1]!.roundId : null };
  }

  async exportRounds(address: string, before?: number): Promise<AsyncIterable<readonly MinerRound[]> | null> {
    const id = await this.minerId(address);
    if (id === null) return null;
    const below = Math.min(before ?? EVERY_ROUND, EVERY_ROUND);
    const stored = () => this.storedRows(id, below, Infinity);
    // The signers of a wallet's rows are a handful (itself, its executors): read once for the whole export.
    const signers = new Map<number, string>();
    // A wallet that played most rounds of its span (the ledgers worth streaming) has every settlement time read at once.
    const { rows: span } = await this.pool.query<{ first_round: number; last_round: number; rounds: number }>('SELECT first_round, last_round, rounds FROM indexer.miner_totals WHERE miner_id = $1', [id]);
    const s = span[0];
    const settled = s !== undefined && 4 * s.rounds >= Math.min(s.last_round + 1, below) - s.first_round ? await this.settledTimes(s.first_round, Math.min(s.last_round, below - 1)) : undefined;
    const wire = (rows: StoredRow[]) => this.toWire(address, rows, signers, settled);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const batch of stored()) {
          for (let i = 0; i < batch.length; i += EXPORT_BATCH) yield await wire(batch.slice(i, i + EXPORT_BATCH));
        }
      },
    };
  }

  /**
   * A wallet's rows below `before`, newest first, in batches: its packed blocks one at a
   * time, each merged with the recent rows of its range (history filled after a block was
   * packed waits in the recent table until the next compaction), then the recent rows
   * newer than every block. Stops once `want` rows were given.
   */
  private async *storedRows(minerId: number, beforeAsked: number, want: number): AsyncGenerator<StoredRow[]> {
    // Below an id past int4 is below every round.
    const before = Math.min(beforeAsked, EVERY_ROUND);
    const { rows: recentRows } = await this.pool.query<Record<string, unknown>>(
      `SELECT ${STORED_COLUMN_LIST} FROM indexer.miner_rounds_recent WHERE miner_id = $1 AND round_id < $2 ORDER BY round_id DESC`,
      [minerId, before],
    );
    const recent = recentRows.map(fromSql);
    let r = 0;
    let given = 0;
    let blockBelow = Math.min(EVERY_ROUND, blockStartOf(before) + 1);
    for (;;) {
      const { rows } = await this.pool.query<{ block_start: number; rounds: number; data: Buffer }>(
        'SELECT block_start, rounds, data FROM indexer.miner_blocks WHERE miner_id = $1 AND block_start < $2 ORDER BY block_start DESC LIMIT 4',
        [minerId, blockBelow],
      );
      for (const b of rows) {
        const batch = decodeBlock(minerId, b.block_start, b.rounds, b.data).filter((row) => row.roundId < before);
        while (r < recent.length && recent[r]!.roundId >= b.block_start) batch.push(recent[r++]!);
        batch.sort((x, y) => y.roundId - x.roundId);
        if (batch.length > 0) {
          yield batch;
          given += batch.length;
          if (given >= want) return;
        }
      }
      if (rows.length === 0) break;
      blockBelow = rows[rows.length - 1]!.block_start;
    }
    for (; r < recent.length && given < want; r += EXPORT_BATCH) {
      const batch = recent.slice(r, r + EXPORT_BATCH);
      yield batch;
      given += batch.length;
    }
  }

  /** Wire rows: their signers' addresses (those `signers` lacks, added to it) and rounds' settlement times read in one query each. */
  private async toWire(address: string | ReadonlyMap<number, string>, rows: readonly StoredRow[], signers: Map<number, string> = new Map(), known?: ReadonlyMap<number, string>): Promise<MinerRound[]> {
    if (rows.length === 0) return [];
    const unknown = new Set<number>();
    for (const r of rows) if (!signers.has(r.signerId)) unknown.add(r.signerId);
    if (unknown.size > 0) for (const [id, a] of await this.addresses([...unknown])) signers.set(id, a);
    const addressOf = (r: StoredRow): string => (typeof address === 'string' ? address : address.get(r.minerId)!);
    let settled = known;
    if (settled === undefined || rows.some((r) => !settled!.has(r.roundId))) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const r of rows) {
        lo = Math.min(lo, r.roundId);
        hi = Math.max(hi, r.roundId);
      }
      // A wallet that played most rounds of a span reads the span (one index range); one whose rounds lie far apart, its rounds.
      settled = hi - lo < 4 * rows.length ? await this.settledTimes(lo, hi) : await this.settledTimes(rows.map((r) => r.roundId));
    }
    return rows.map((r) => toWire(r, addressOf(r), signers.get(r.signerId)!, settled.get(r.roundId)!));
  }

  /** Rounds' settlement times as the wire writes them (formatted by PostgreSQL: no Date a row), of a range or a list of rounds. */
  private async settledTimes(...range: [number, number] | [readonly number[]]): Promise<Map<number, string>> {
    const iso = `to_char(settled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const { rows } =
      range.length === 2
        ? await this.pool.query<{ round_id: number; at: string }>(`SELECT round_id, ${iso} AS at FROM indexer.miner_round_sets WHERE round_id BETWEEN $1 AND $2`, range)
        : await this.pool.query<{ round_id: number; at: string }>(`SELECT round_id, ${iso} AS at FROM indexer.miner_round_sets WHERE round_id = ANY($1::int4[])`, [range[0]]);
    return new Map(rows.map((r) => [r.round_id, r.at]));
  }

  private async addresses(ids: readonly number[]): Promise<Map<number, string>> {
    const { rows } = await this.pool.query<{ id: number; address: Buffer }>('SELECT id, address FROM indexer.wallets WHERE id = ANY($1::int4[])', [ids]);
    return new Map(rows.map((r) => [r.id, encodeBase58(r.address)]));
  }

  async performance(address: string, bucket: MinerBucket): Promise<MinerPerformance | null> {
    const id = await this.minerId(address);
    if (id === null) return null;
    const table = bucket === 'hour' ? 'miner_hours' : 'miner_days';
    const { rows } = await this.pool.query<RollupSql & { b: number }>(`SELECT ${bucket} AS b, ${ROLLUP_LIST} FROM indexer.${table} WHERE miner_id = $1 ORDER BY ${bucket}`, [id]);
    const step = bucket === 'hour' ? HOUR_MS : DAY_MS;
    let cumulativeNet = 0;
    let cumulativeOre = 0;
    const points = rows.map((r) => {
      const w = toWindow(rollupFrom(r));
      cumulativeNet += w.net;
      cumulativeOre += w.ore;
      return {
        start: new Date(r.b * step).toISOString(),
        rounds: w.rounds,
        deployed: w.deployed,
        solBack: w.solBack,
        fees: w.adminFee + w.protocolFee + w.networkFee + w.priorityFee + w.executorFee,
        net: w.net,
        ore: w.ore,
        cumulativeNet,
        cumulativeOre,
      };
    });
    return { address, bucket, points };
  }

  /**
   * The top miners: of all time read live (expression indexes), of a window from the lists
   * the indexer's leader sums each minute (`miner_tops`), or summed now before its first.
   */
  async top(sort: MinerSort, window: MinerWindowName, limit: number, now: Date): Promise<TopMiners> {
    type Top = { miner_id: number; rounds: number; deployed: number; net: number; ore: number; as_of?: Date };
    let rows: Top[] = [];
    let asOf = now;
    if (window !== 'all') {
      ({ rows } = await this.pool.query<Top>(
        'SELECT miner_id, rounds, deployed, net, ore, refreshed_at AS as_of FROM indexer.miner_tops WHERE win = $1 AND sort = $2 ORDER BY rank LIMIT $3',
        [WINDOW_CODES[window], SORT_CODES[sort], limit],
      ));
      if (rows.length > 0) asOf = rows[0]!.as_of!;
    }
    if (rows.length === 0) ({ rows } = await this.pool.query<Top>(windowTopSql(sort, window, limit, now)));
    const addresses = await this.addresses(rows.map((r) => r.miner_id));
    return {
      window,
      sort,
      asOf: asOf.toISOString(),
      miners: rows.map((r, i) => ({ rank: i + 1, address: addresses.get(r.miner_id)!, rounds: Number(r.rounds), deployed: r.deployed, net: r.net, ore: r.ore })),
    };
  }

  async roundMiners(roundId: number): Promise<RoundMiners | null> {
    // Round ids are int4 in the ledger: a larger id (the API takes any up to 2^53) names no stored round.
    if (roundId > EVERY_ROUND) return null;
    const { rows: sets } = await this.pool.query<{ miner_ids: number[] }>('SELECT miner_ids FROM indexer.miner_round_sets WHERE round_id = $1', [roundId]);
    if (sets.length === 0) return null;
    const order = sets[0]!.miner_ids;
    const found = new Map<number, StoredRow>();
    const { rows: recent } = await this.pool.query<Record<string, unknown>>(`SELECT ${STORED_COLUMN_LIST} FROM indexer.miner_rounds_recent WHERE round_id = $1`, [roundId]);
    for (const r of recent) found.set(r['miner_id'] as number, fromSql(r));
    const missing = order.filter((id) => !found.has(id));
    if (missing.length > 0) {
      const start = blockStartOf(roundId);
      const { rows: blocks } = await this.pool.query<{ miner_id: number; rounds: number; data: Buffer }>(
        'SELECT miner_id, rounds, data FROM indexer.miner_blocks WHERE block_start = $1 AND miner_id = ANY($2::int4[])',
        [start, missing],
      );
      for (const b of blocks) {
        const row = decodeBlock(b.miner_id, start, b.rounds, b.data).find((r) => r.roundId === roundId);
        if (row !== undefined) found.set(b.miner_id, row);
      }
    }
    const rows = order.map((id) => found.get(id)).filter((r): r is StoredRow => r !== undefined);
    const addresses = await this.addresses([...new Set([...order, ...rows.map((r) => r.signerId)])]);
    const miners = await this.toWire(addresses, rows, new Map(addresses));
    return { roundId, count: miners.length, miners };
  }
}
