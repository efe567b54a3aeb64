import { bestSquares, boardEv } from '@gridlab/chain';
import type { LiveEv as LiveEvView, LiveSnapshot } from '@gridlab/contracts';

/** GET /live/ev without `stale`, which the handler adds from the snapshot's freshness. */
export type LiveEv = Omit<LiveEvView, 'stale'>;

/** What the caller asks of GET /live/ev. */
export interface EvQuery {
  /** Lamports added to each square in turn. */
  readonly stakeLamports: number;
  /** Lamports per whole ORE; absent: the board's production cost. */
  readonly orePriceLamports?: number;
  /** How many best squares to list. */
  readonly k: number;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Every square's EV for the query on the live round, or null when the snapshot has no game (an older indexer). */
export function liveEv(snapshot: LiveSnapshot, query: EvQuery): LiveEv | null {
  const game = snapshot.game;
  if (game === undefined) return null;
  const price = query.orePriceLamports ?? game.productionCost ?? 0;
  const source = query.orePriceLamports !== undefined ? 'caller' : game.productionCost !== null ? 'productionCost' : 'none';
  const evs = boardEv({ deployed: snapshot.deployed, payoutRule: game.payoutRule, oreReward: game.oreReward, motherlodePool: game.motherlodePool ?? 0, splitSquares: game.splitSquares }, query.stakeLamports, price);
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
