import { bestSquares, boardEv } from '@gridlab/chain';
import type { LiveSnapshot } from '@gridlab/contracts';

/** What the caller asks of GET /live/ev. */
export interface EvQuery {
  /** Lamports added to each square in turn. */
  readonly stakeLamports: number;
  /** Lamports per whole ORE; absent: the board's production cost. */
  readonly orePriceLamports?: number;
  /** How many best squares to list. */
  readonly k: number;
}

/** One square's EV for the stake. */
export interface SquareEvView {
  readonly square: number;
  readonly deployedLamports: number;
  /** Expected lamports won or lost (SOL back less the stake, plus the ORE at the price). */
  readonly evLamports: number;
  readonly evPerSol: number;
  readonly expectedSolBackLamports: number;
  /** Expected ORE, base units. */
  readonly expectedOre: number;
  /** true: the prize would be split pro rata if the square wins; false: one top miner; null: decided by the round's randomness. */
  readonly split: boolean | null;
}

export interface LiveEv {
  readonly roundId: number;
  readonly status: LiveSnapshot['status'];
  readonly payoutRule: 'parimutuel' | 'returns';
  readonly stakeLamports: number;
  readonly orePriceLamports: number;
  /** Where the price came from: the caller, the board's production cost, or none (ORE valued at 0). */
  readonly orePriceSource: 'caller' | 'productionCost' | 'none';
  readonly oreReward: number;
  readonly motherlodePool: number | null;
  readonly squares: SquareEvView[];
  /** The `k` best squares for the stake, best first (ties: the lower square). */
  readonly best: number[];
  readonly updatedAt: string;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Every square's EV for the query on the live round, or null when the snapshot has no game (an older indexer). */
export function liveEv(snapshot: LiveSnapshot, query: EvQuery): LiveEv | null {
  const game = snapshot.game;
  if (game === undefined) return null;
  const price = query.orePriceLamports ?? game.productionCost ?? 0;
  const source = query.orePriceLamports !== undefined ? 'caller' : game.productionCost !== null ? 'productionCost' : 'none';
  const evs = boardEv({ deployed: snapshot.deployed, payoutRule: game.payoutRule, oreReward: game.oreReward, motherlodePool: game.motherlodePool ?? 0 }, query.stakeLamports, price);
  return {
    roundId: snapshot.roundId,
    status: snapshot.status,
    payoutRule: game.payoutRule,
    stakeLamports: query.stakeLamports,
    orePriceLamports: price,
    orePriceSource: source,
    oreReward: game.oreReward,
    motherlodePool: game.motherlodePool,
    squares: evs.map((e) => ({
      square: e.square,
      deployedLamports: snapshot.deployed[e.square]!,
      evLamports: round3(e.evLamports),
      evPerSol: round6(e.evPerSol),
      expectedSolBackLamports: round3(e.expectedSolBack),
      expectedOre: round3(e.expectedOre),
      split: game.splitSquares?.[e.square] ?? null,
    })),
    best: bestSquares(evs, query.k).map((e) => e.square),
    updatedAt: snapshot.updatedAt,
  };
}
