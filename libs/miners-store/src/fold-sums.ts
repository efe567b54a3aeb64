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

  get rounds(): ReadonlySet<number> {
    return this.held;
  }

  /** A round's rows, settled on `day` and in `hour`; hours before `oldestHour` are not kept. */
  add(roundId: number, rows: readonly StoredRow[], day: number, hour: number, oldestHour: number): void {
    this.held.add(roundId);
    const byDay = at(this.days, day);
    const byHour = hour >= oldestHour ? at(this.hours, hour) : null;
    for (const row of rows) {
      addRow(at(byDay, row.minerId, emptyRollup), row);
      if (byHour !== null) addRow(at(byHour, row.minerId, emptyRollup), row);
    }
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
