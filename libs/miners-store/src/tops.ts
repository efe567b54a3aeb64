import type { MinerSort } from '@gridlab/contracts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The longest list a top-miners answer holds. */
export const TOP_MAX = 100;

/** The sort expressions of the top miners over a rollup row (summed for a window). */
const SORTS: Readonly<Record<MinerSort, string>> = {
  net: 'sol_back - deployed - network_fee - priority_fee - executor_fee',
  ore: 'ore_top + ore_split + ore_motherlode',
  deployed: 'deployed',
  rounds: 'rounds',
};

/** The windows summed from the hourly and daily rollups (all time reads the totals). */
export const SUMMED_WINDOWS = ['24h', '7d', '30d'] as const;
export type SummedWindow = (typeof SUMMED_WINDOWS)[number];

/** A window's and a sort's codes in `miner_tops`. */
export const WINDOW_CODES: Readonly<Record<SummedWindow, number>> = { '24h': 1, '7d': 2, '30d': 3 };
export const SORT_CODES: Readonly<Record<MinerSort, number>> = { net: 1, ore: 2, deployed: 3, rounds: 4 };

/** The query of a window's top miners at `now`, summed from the rollups: `miner_id, rounds, deployed, net, ore`, best first. */
export function windowTopSql(sort: MinerSort, window: SummedWindow | 'all', limit: number, now: Date): { text: string; values: unknown[] } {
  if (window === 'all') {
    // The expression indexes on miner_totals give the order without a sort.
    return {
      text: `SELECT miner_id, rounds, deployed, ${SORTS.net} AS net, ${SORTS.ore} AS ore FROM indexer.miner_totals ORDER BY ${SORTS[sort]} DESC, miner_id LIMIT $1`,
      values: [limit],
    };
  }
  const hours = window === '24h';
  const from = hours ? Math.floor(now.getTime() / HOUR_MS) - 24 : Math.floor(now.getTime() / DAY_MS) - (window === '7d' ? 7 : 30);
  const sum = (c: string) => `sum(${c})::int8`;
  return {
    text: `SELECT miner_id, ${sum('rounds')} AS rounds, ${sum('deployed')} AS deployed, ${sum(SORTS.net)} AS net, ${sum(SORTS.ore)} AS ore
      FROM indexer.${hours ? 'miner_hours' : 'miner_days'} WHERE ${hours ? 'hour' : 'day'} > $1
      GROUP BY miner_id ORDER BY ${sort === 'net' || sort === 'ore' ? sort : sum(sort)} DESC, miner_id LIMIT $2`,
    values: [from, limit],
  };
}
