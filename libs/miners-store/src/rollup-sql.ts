import { FLAG_HELD_WINNER, FLAG_KNOWN, FLAG_SPLIT, FLAG_TOP_MINER, type StoredRow } from './row';
import { ROLLUP_COLUMNS, SLOT_BUCKET_COUNT, rollupOf, slotBucketSql, slotsOf, type Rollup } from './rollup';

// The statements that add rows to the rollups (`miner_days`, `miner_hours`, `miner_totals`):
// rows written with their rollups, rows folded in later from the stored columns, and rows
// already summed per wallet and day or hour (`FoldSums`).

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

type RollupColumn = (typeof ROLLUP_COLUMNS)[number];
/** A stored row's figure that is known only when its stake and outcome are (`rollupOf`'s `k`). */
const known = (c: string) => `CASE WHEN known THEN coalesce(x.${c}, 0) ELSE 0 END`;
/** A stored row's flag counted only when its stake and outcome are known. */
const knownFlag = (flag: number) => `(known AND x.flags & ${flag} <> 0)::int4`;
/**
 * The figures each row adds to every summed column: `of` from the row in JavaScript (rounds
 * written with their rollups), `sql` from the stored columns (`x`, with `known` as
 * `rollupOf` has it), for rows added to the rollups later. The count, round range and
 * histogram are derived in SQL either way.
 */
const SUMMED: readonly { readonly column: RollupColumn; readonly type: 'int4' | 'int8'; readonly of: (r: Rollup) => number; readonly sql: string }[] = [
  { column: 'deploys', type: 'int4', of: (r) => r.deploys, sql: 'x.deploys::int4' },
  { column: 'wins', type: 'int4', of: (r) => r.wins, sql: knownFlag(FLAG_HELD_WINNER) },
  { column: 'top_wins', type: 'int4', of: (r) => r.topWins, sql: knownFlag(FLAG_TOP_MINER) },
  { column: 'motherlode_hits', type: 'int4', of: (r) => r.motherlodeHits, sql: '(known AND coalesce(x.ore_motherlode, 0) > 0)::int4' },
  { column: 'unknown', type: 'int4', of: (r) => r.unknown, sql: '(NOT known)::int4' },
  { column: 'deployed', type: 'int8', of: (r) => r.deployed, sql: 'CASE WHEN known THEN x.stake ELSE 0 END' },
  { column: 'sol_back', type: 'int8', of: (r) => r.solBack, sql: known('sol_back') },
  { column: 'admin_fee', type: 'int8', of: (r) => r.adminFee, sql: known('admin_fee') },
  { column: 'protocol_fee', type: 'int8', of: (r) => r.protocolFee, sql: known('protocol_fee') },
  { column: 'network_fee', type: 'int8', of: (r) => r.networkFee, sql: 'coalesce(x.network_fee, 0)::int8' },
  { column: 'priority_fee', type: 'int8', of: (r) => r.priorityFee, sql: 'coalesce(x.priority_fee, 0)::int8' },
  { column: 'executor_fee', type: 'int8', of: (r) => r.executorFee, sql: 'coalesce(x.executor_fee, 0)::int8' },
  { column: 'checkpoint_deposits', type: 'int8', of: (r) => r.checkpointDeposits, sql: 'coalesce(x.checkpoint_deposit, 0)::int8' },
  { column: 'ore_top', type: 'int8', of: (r) => r.oreTop, sql: `CASE WHEN known AND x.flags & ${FLAG_SPLIT} = 0 THEN coalesce(x.ore, 0) ELSE 0 END` },
  { column: 'ore_split', type: 'int8', of: (r) => r.oreSplit, sql: `CASE WHEN known AND x.flags & ${FLAG_SPLIT} <> 0 THEN coalesce(x.ore, 0) ELSE 0 END` },
  { column: 'ore_motherlode', type: 'int8', of: (r) => r.oreMotherlode, sql: known('ore_motherlode') },
  { column: 'ore_value', type: 'int8', of: (r) => r.oreValue, sql: known('ore_value') },
];

/** Each rollup column of a group of rows, in `ROLLUP_COLUMNS`' order. */
const ROLLUP_AGGREGATES = ROLLUP_COLUMNS.map((c) => {
  if (c === 'rounds') return 'count(*)::int4';
  if (c === 'first_round') return 'min(r)';
  if (c === 'last_round') return 'max(r)';
  if (c === 'slots_hist') return `ARRAY[${Array.from({ length: SLOT_BUCKET_COUNT }, (_, b) => `sum((b1 = ${b})::int4 + (b2 = ${b})::int4 * n2)::int4`).join(', ')}]`;
  const summed = SUMMED.find((x) => x.column === c)!;
  return `sum(${c})::${summed.type}`;
});

/** Each rollup column of a group of rollup rows (a wallet's days to its total), in `ROLLUP_COLUMNS`' order. */
const ROLLUP_SUMS = ROLLUP_COLUMNS.map((c) => {
  if (c === 'rounds') return 'sum(rounds)::int4';
  if (c === 'first_round') return 'min(first_round)';
  if (c === 'last_round') return 'max(last_round)';
  if (c === 'slots_hist') return `ARRAY[${Array.from({ length: SLOT_BUCKET_COUNT }, (_, b) => `sum(slots_hist[${b + 1}])::int4`).join(', ')}]`;
  return `sum(${c})::${SUMMED.find((x) => x.column === c)!.type}`;
}).join(', ');

function upsertFrom(table: string, key: string | null, select: string): string {
  const conflict = key === null ? '(miner_id)' : `(miner_id, ${key})`;
  return `INSERT INTO indexer.${table} AS t (${key === null ? '' : `${key}, `}miner_id, ${ROLLUP_COLUMNS.join(', ')}) ${select} ON CONFLICT ${conflict} DO UPDATE SET ${ROLLUP_SET}`;
}

/**
 * Rows' parts of the rollups, one statement: `rows` gives each row's day, hour, wallet,
 * round, histogram buckets and summed figures (`u(d, h, m, r, b1, b2, n2, ...SUMMED)`), and
 * PostgreSQL sums them per day and per hour (rows from hour `oldestHour` on), and the
 * wallets' days in all (a wallet plays many rounds a day: summing its few day sums is
 * cheaper than its rows again). How many rows it summed. Each table's rows go in in key
 * order, so two rollup writes at once (the live round's and a fold) lock the rows they
 * share in one order and cannot deadlock.
 */
function rollupsSql(rows: string, oldestHour: string): string {
  return `WITH u AS MATERIALIZED (${rows}), dm AS MATERIALIZED (
    SELECT d, m, ${ROLLUP_AGGREGATES.map((a, i) => `${a} AS ${ROLLUP_COLUMNS[i]}`).join(', ')} FROM u GROUP BY d, m
  ), days AS (
    ${upsertFrom('miner_days', 'day', 'SELECT * FROM dm ORDER BY m, d')}
  ), hours AS (
    ${upsertFrom('miner_hours', 'hour', `SELECT h, m, ${ROLLUP_AGGREGATES.join(', ')} FROM u WHERE h >= ${oldestHour} GROUP BY h, m ORDER BY m, h`)}
  ), totals AS (
    ${upsertFrom('miner_totals', null, `SELECT m, ${ROLLUP_SUMS} FROM dm GROUP BY m ORDER BY m`)}
  ) SELECT coalesce(sum(rounds), 0)::int4 AS n FROM dm`;
}

/** Rows written with their rollups: each row's figures go once, as array literals (quicker to write than pg's per-element arrays). */
const ROLLUPS_SQL = rollupsSql(
  `SELECT * FROM unnest($1::int4[], $2::int4[], $3::int4[], $4::int4[], $5::int4[], $6::int4[], $7::int4[], ${SUMMED.map((x, i) => `$${i + 8}::${x.type}[]`).join(', ')})
     AS u(d, h, m, r, b1, b2, n2, ${SUMMED.map((x) => x.column).join(', ')})`,
  `$${SUMMED.length + 8}`,
);

/**
 * The lamports a stored row (`y`) staked (`stakeOf`): the uniform amount times the squares
 * taken, else the per-square amounts (big-endian int8s) summed; NULL when not known.
 */
const STAKE_SQL = `CASE WHEN y.squares IS NULL THEN NULL
  WHEN y.amount IS NOT NULL THEN y.amount * bit_count(y.squares::bit(32))
  WHEN y.amounts IS NULL THEN NULL
  ELSE coalesce((SELECT sum(('x' || encode(substr(y.amounts, i, 8), 'hex'))::bit(64)::int8) FROM generate_series(1, length(y.amounts), 8) AS i), 0)::int8 END`;

/**
 * Stored rows of the rounds `$1` (UTC days `$2`, hours `$3`, as `dayOf` and `hourOf` give
 * them) added to the rollups, their figures computed from the stored columns as `rollupOf`
 * and `slotsOf` compute them. The rounds come as parameters, not from a join with the
 * round sets: on Citus the rows' shards (by wallet) are then read each on its own. The
 * stake is computed in a subquery kept apart (`OFFSET 0`): flattened, PostgreSQL would
 * compute it again in every figure that reads it.
 */
export const FOLD_SQL = rollupsSql(
  `SELECT x.d, x.h, x.miner_id AS m, x.round_id AS r,
      ${slotBucketSql('x.slots_left')} AS b1, ${slotBucketSql('x.slots_left_last')} AS b2, greatest(0, x.deploys - 1)::int4 AS n2,
      ${SUMMED.map((c) => `${c.sql} AS ${c.column}`).join(', ')}
    FROM (SELECT c.d, c.h, y.*, ${STAKE_SQL} AS stake
            FROM unnest($1::int4[], $2::int4[], $3::int4[]) AS c(round_id, d, h) JOIN indexer.miner_rounds_recent y ON y.round_id = c.round_id OFFSET 0) x
      CROSS JOIN LATERAL (SELECT x.stake IS NOT NULL AND x.flags & ${FLAG_KNOWN} <> 0 AS known) k`,
  '$4',
);

export function rollupsStatement(rows: readonly StoredRow[], days: ReadonlyMap<number, number>, hours: ReadonlyMap<number, number>, oldestHour: number): { text: string; values: unknown[] } {
  const columns: number[][] = Array.from({ length: SUMMED.length + 7 }, () => []);
  for (const row of rows) {
    const rollup = rollupOf(row);
    const slots = slotsOf(row);
    const head = [days.get(row.roundId)!, hours.get(row.roundId)!, row.minerId, row.roundId, slots.first, slots.last, slots.laterDeploys];
    for (let i = 0; i < head.length; i++) columns[i]!.push(head[i]!);
    for (let i = 0; i < SUMMED.length; i++) columns[i + 7]!.push(SUMMED[i]!.of(rollup));
  }
  return { text: ROLLUPS_SQL, values: [...columns.map((c) => `{${c.join(',')}}`), oldestHour] };
}

/** Each rollup column's array parameter type, for rows already summed. */
const SUM_TYPES = ROLLUP_COLUMNS.map((c) => (c === 'slots_hist' ? 'text' : c === 'rounds' || c === 'first_round' || c === 'last_round' ? 'int4' : SUMMED.find((x) => x.column === c)!.type));

/** `unnest` of a key and wallet and every rollup column, from parameter `$first` on. */
function summedRows(key: string, first: number): string {
  const columns = ROLLUP_COLUMNS.map((c) => (c === 'slots_hist' ? `${c}::int4[] AS ${c}` : c)).join(', ');
  const params = [`$${first}::int4[]`, `$${first + 1}::int4[]`, ...SUM_TYPES.map((t, i) => `$${first + 2 + i}::${t}[]`)].join(', ');
  return `SELECT ${key}, m, ${columns} FROM unnest(${params}) AS u(${key}, m, ${ROLLUP_COLUMNS.join(', ')})`;
}

/**
 * Rows already summed per wallet and day (`$1`...) and per wallet and hour (the next
 * arrays) added to the rollups, the days' sums summed again into the totals; how many rows
 * the day sums counted. Each table's rows in key order, as `rollupsSql` writes them.
 */
export const SUMS_SQL = `WITH dm AS MATERIALIZED (${summedRows('d', 1)}), days AS (
    ${upsertFrom('miner_days', 'day', 'SELECT * FROM dm ORDER BY m, d')}
  ), hours AS (
    ${upsertFrom('miner_hours', 'hour', `${summedRows('h', ROLLUP_COLUMNS.length + 3)} ORDER BY m, h`)}
  ), totals AS (
    ${upsertFrom('miner_totals', null, `SELECT m, ${ROLLUP_SUMS} FROM dm GROUP BY m ORDER BY m`)}
  ) SELECT coalesce(sum(rounds), 0)::int4 AS n FROM dm`;

/** The parameters of SUMS_SQL for one table's sums: keys, wallets, then each rollup column (array literals: quicker to write than pg's arrays). */
export function sumsValues(sums: readonly { readonly key: number; readonly minerId: number; readonly rollup: Rollup }[]): string[] {
  const literal = (values: readonly (number | string)[]) => `{${values.join(',')}}`;
  const column = (c: (typeof ROLLUP_COLUMNS)[number]): string => {
    switch (c) {
      case 'rounds': return literal(sums.map((s) => s.rollup.rounds));
      case 'first_round': return literal(sums.map((s) => s.rollup.firstRound));
      case 'last_round': return literal(sums.map((s) => s.rollup.lastRound));
      case 'slots_hist': return literal(sums.map((s) => `"{${s.rollup.slotsHist.join(',')}}"`));
      default: {
        const summed = SUMMED.find((x) => x.column === c)!;
        return literal(sums.map((s) => summed.of(s.rollup)));
      }
    }
  };
  return [literal(sums.map((s) => s.key)), literal(sums.map((s) => s.minerId)), ...ROLLUP_COLUMNS.map(column)];
}
