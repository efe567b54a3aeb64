/**
 * The rules judged on every live snapshot (several a second while a round is busy):
 * motherlode and square_ev. Each kind is indexed so a snapshot costs what changed, not a
 * pass over every rule: motherlode bars are sorted, so a pool that moves from p to q
 * touches only the bars between; square_ev rules are grouped by stake and price, so the
 * board's EV (@gridlab/chain's boardEv) is figured once per pair, and a rule whose bar is
 * above every square's EV is passed over at the cost of one comparison.
 */
import { boardEv, type SquareEv } from '@gridlab/chain';
import type { LiveGame, LiveSnapshot } from '@gridlab/contracts';
import { dedupKeys, type Firing, type SquareEvHit } from './alerts';
import { oreBaseUnits, type RuleOf } from './rules';

const SQUARES = 25;
const ALL_SQUARES: readonly number[] = Array.from({ length: SQUARES }, (_, s) => s);
/** EV per SOL in payloads: 6 decimals, as GET /live/ev shows it. */
const EV_DIGITS = 1e6;

type MotherlodeRule = RuleOf<'motherlode'>;
type SquareEvRule = RuleOf<'square_ev'>;

/**
 * Motherlode rules over one set of rules. A rule fires when the pool reaches its bar and
 * holds (is in `holding`) until the pool falls below it: once per climb. `holding` is the
 * caller's set, kept across rebuilds and restarts.
 */
export class MotherlodeWatch {
  private readonly rules: readonly { readonly rule: MotherlodeRule; readonly bar: number }[];
  /** The pool last judged; null: judge every rule on the next snapshot. */
  private lastPool: number | null = null;

  constructor(
    rules: readonly MotherlodeRule[],
    private readonly holding: Set<string>,
  ) {
    this.rules = rules.map((rule) => ({ rule, bar: oreBaseUnits(rule.minOre) })).sort((a, b) => a.bar - b.bar);
  }

  /** Firings of the rules whose bar `pool` (ORE base units) reaches anew. */
  onPool(roundId: number, pool: number): Firing[] {
    const from = this.lastPool;
    this.lastPool = pool;
    if (from === pool) return [];
    // Bars in (low, high] are the only ones whose side of the pool changed.
    const [lo, hi] = from === null ? [0, this.rules.length] : [this.upperBound(Math.min(from, pool)), this.upperBound(Math.max(from, pool))];
    const out: Firing[] = [];
    for (let i = lo; i < hi; i++) {
      const { rule, bar } = this.rules[i]!;
      if (pool < bar) this.holding.delete(rule.id);
      else if (!this.holding.has(rule.id)) {
        this.holding.add(rule.id);
        out.push({
          ruleId: rule.id,
          dedupKey: dedupKeys.motherlode(rule.id, roundId),
          payload: { type: 'alert.motherlode', ruleId: rule.id, roundId, minOre: rule.minOre, poolBaseUnits: pool },
        });
      }
    }
    return out;
  }

  /** Index of the first rule whose bar is above `pool`. */
  private upperBound(pool: number): number {
    let lo = 0;
    let hi = this.rules.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rules[mid]!.bar <= pool) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * What a snapshot reads of a square_ev rule, in one object shape. Built here rather than
 * read from the rules, whose shapes depend on how the caller made them (spread objects
 * can cost V8 twenty times as much per property read on this path).
 */
interface Entry {
  readonly id: string;
  readonly minEvPerSol: number;
  readonly fromSlotsBeforeEnd: number;
  readonly squares: readonly number[];
  readonly rule: SquareEvRule;
}

/** square_ev rules of one stake and one price setting (a price, or the production cost). */
interface Group {
  readonly stakeLamports: number;
  readonly orePriceLamports: number | null;
  /** Descending fromSlotsBeforeEnd: the rules in the window are a prefix. */
  readonly entries: Entry[];
}

/** The round square_ev rules were last judged in, and which of them fired in it. */
export interface SquareEvProgress {
  roundId: number | null;
  readonly fired: Set<string>;
}

/**
 * square_ev rules: each fires at most once per round, on the first snapshot within its
 * window (at most `fromSlotsBeforeEnd` slots before the end) where a square of its
 * choosing returns at least its bar per SOL. `progress` is the caller's, kept across
 * rebuilds and restarts.
 */
export class SquareEvWatch {
  private readonly groups: readonly Group[];

  constructor(
    rules: readonly SquareEvRule[],
    private readonly progress: SquareEvProgress,
  ) {
    const byPair = new Map<string, Group>();
    for (const rule of rules) {
      const key = `${rule.stakeLamports}:${rule.orePriceLamports ?? 'cost'}`;
      let group = byPair.get(key);
      if (group === undefined) {
        group = { stakeLamports: rule.stakeLamports, orePriceLamports: rule.orePriceLamports, entries: [] };
        byPair.set(key, group);
      }
      group.entries.push({ id: rule.id, minEvPerSol: rule.minEvPerSol, fromSlotsBeforeEnd: rule.fromSlotsBeforeEnd, squares: rule.squares ?? ALL_SQUARES, rule });
    }
    for (const group of byPair.values()) group.entries.sort((a, b) => b.fromSlotsBeforeEnd - a.fromSlotsBeforeEnd);
    this.groups = [...byPair.values()];
  }

  onSnapshot(snapshot: LiveSnapshot): Firing[] {
    const game = snapshot.game;
    if (game === undefined || snapshot.status !== 'active' || snapshot.endSlot === null) return [];
    const slotsLeft = snapshot.endSlot - snapshot.slot;
    if (slotsLeft < 0) return [];
    const progress = this.progress;
    if (progress.roundId === null || snapshot.roundId > progress.roundId) {
      progress.roundId = snapshot.roundId;
      progress.fired.clear();
    } else if (snapshot.roundId < progress.roundId) return [];
    // A price given by one rule may equal the production cost another rule defers to: one board for both.
    const boards = new Map<string, Board>();
    const out: Firing[] = [];
    for (const group of this.groups) {
      if (group.entries[0]!.fromSlotsBeforeEnd < slotsLeft) continue;
      const price = group.orePriceLamports ?? game.productionCost ?? 0;
      const key = `${group.stakeLamports}:${price}`;
      let board = boards.get(key);
      if (board === undefined) {
        board = new Board(boardEv(evRound(snapshot, game), group.stakeLamports, price));
        boards.set(key, board);
      }
      for (const entry of group.entries) {
        if (entry.fromSlotsBeforeEnd < slotsLeft) break;
        if (entry.minEvPerSol > board.best || progress.fired.has(entry.id)) continue;
        const hits = board.hits(entry.squares, entry.minEvPerSol, snapshot.deployed);
        if (hits.length === 0) continue;
        const rule = entry.rule;
        progress.fired.add(rule.id);
        out.push({
          ruleId: rule.id,
          dedupKey: dedupKeys.squareEv(rule.id, snapshot.roundId),
          payload: {
            type: 'alert.square_ev',
            ruleId: rule.id,
            roundId: snapshot.roundId,
            slot: snapshot.slot,
            slotsLeft,
            minEvPerSol: rule.minEvPerSol,
            stakeLamports: rule.stakeLamports,
            orePriceLamports: price,
            orePriceSource: rule.orePriceLamports !== null ? 'caller' : game.productionCost !== null ? 'productionCost' : 'none',
            squares: hits,
          },
        });
      }
    }
    return out;
  }
}

/** The live round as the chain lib's EV takes it (what GET /live/ev passes too). */
function evRound(snapshot: LiveSnapshot, game: LiveGame): Parameters<typeof boardEv>[0] {
  return { deployed: snapshot.deployed, payoutRule: game.payoutRule, oreReward: game.oreReward, motherlodePool: game.motherlodePool ?? 0, splitSquares: game.splitSquares };
}

/** One stake's EV on every square of a snapshot. */
class Board {
  /** The highest EV per SOL of any square: a rule asking more is passed over. */
  readonly best: number;

  constructor(private readonly evs: readonly SquareEv[]) {
    this.best = Math.max(...evs.map((e) => e.evPerSol));
  }

  /** The squares of `squares` at or above `min`, best first (ties: lower square first). */
  hits(squares: readonly number[], min: number, deployed: readonly number[]): SquareEvHit[] {
    const hits: SquareEvHit[] = [];
    for (const square of squares) {
      const ev = this.evs[square]!.evPerSol;
      if (ev >= min) hits.push({ square, evPerSol: Math.round(ev * EV_DIGITS) / EV_DIGITS, deployedLamports: deployed[square]! });
    }
    return hits.sort((a, b) => b.evPerSol - a.evPerSol || a.square - b.square);
  }
}
