import { addRollup, addRow, emptyRollup, type Rollup } from './rollup';
import { sumsValues, SUMS_SQL } from './rollup-sql';
import type { StoredRow } from './row';

/** Rounds whose sums a writer holds at most; past it, it drops them and the fold reads those rounds' rows instead. */
const MAX_ROUNDS = 20_000;

type Sums = Map<number, Map<number, Rollup>>;

/**
 * The rollups of rows written without them (history), summed in memory per wallet and UTC
 * day, and per wallet and hour for rows in the hours kept, with the rounds they are of. A
 * fold that claims every one of these rounds adds the sums instead of reading the rows back
 * and summing them in PostgreSQL (the larger part of its cost); any other fold reads the
 * rows (`FOLD_SQL`), so sums of rounds another fold took are never added.
 */
export class FoldSums {
  private readonly held = new Set<number>();
  /** Day, then wallet id: a thousand rounds span a day or two, and wallet ids key a Map as small integers. */
  private readonly days: Sums = new Map();
  private readonly hours: Sums = new Map();
  /** The sums `add` adds to: the day's and the hour's of the round named last. */
  private byDay: Map<number, Rollup> | null = null;
  private byHour: Map<number, Rollup> | null = null;

  get rounds(): ReadonlySet<number> {
    return this.held;
  }

  /** Round `roundId`, settled on `day` and in `hour`, whose rows `add` sums next; hours before `oldestHour` are not kept. */
  round(roundId: number, day: number, hour: number, oldestHour: number): void {
    this.held.add(roundId);
    this.byDay = at(this.days, day);
    this.byHour = hour >= oldestHour ? at(this.hours, hour) : null;
  }

  /** A row of the round named last (`round`); not kept. */
  add(row: StoredRow): void {
    if (this.byDay === null) throw new Error('a row before its round');
    addRow(at(this.byDay, row.minerId, emptyRollup), row);
    if (this.byHour !== null) addRow(at(this.byHour, row.minerId, emptyRollup), row);
  }

  /** Adds `other`'s rounds and sums; past MAX_ROUNDS, holds none (their rows are still listed for a fold). */
  merge(other: FoldSums): void {
    for (const id of other.held) this.held.add(id);
    mergeInto(this.days, other.days);
    mergeInto(this.hours, other.hours);
    if (this.held.size > MAX_ROUNDS) this.clear();
  }

  clear(): void {
    this.held.clear();
    this.days.clear();
    this.hours.clear();
    this.byDay = null;
    this.byHour = null;
  }

  /** The statement adding the sums to the rollups (hours before `oldestHour` left out); null when there are none. */
  statement(oldestHour: number): { text: string; values: string[] } | null {
    if (this.held.size === 0) return null;
    return { text: SUMS_SQL, values: [...sumsValues(listed(this.days, () => true)), ...sumsValues(listed(this.hours, (h) => h >= oldestHour))] };
  }
}

function at<K, V>(map: Map<K, V>, key: K, make?: () => V): V {
  let v = map.get(key);
  if (v === undefined) map.set(key, (v = make === undefined ? (new Map() as V) : make()));
  return v;
}

function mergeInto(into: Sums, from: Sums): void {
  for (const [key, wallets] of from) {
    const target = at(into, key);
    for (const [minerId, rollup] of wallets) {
      const held = target.get(minerId);
      if (held === undefined) target.set(minerId, rollup);
      else addRollup(held, rollup);
    }
  }
}

function listed(sums: Sums, keep: (key: number) => boolean): { key: number; minerId: number; rollup: Rollup }[] {
  const out: { key: number; minerId: number; rollup: Rollup }[] = [];
  for (const [key, wallets] of sums) if (keep(key)) for (const [minerId, rollup] of wallets) out.push({ key, minerId, rollup });
  return out;
}
