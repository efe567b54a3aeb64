/**
 * The game's state as a versioned, JSON-safe object: what the devnet's ledger file keeps
 * so that a restarted devnet continues the same game (same round ids, same open round,
 * same random sequence) instead of starting again from genesis.
 *
 * Bump GAME_STATE_VERSION whenever the shape or meaning of the state changes (new fields,
 * another round layout, ...): a ledger file holding another version is refused with a
 * message telling the user to start from genesis (`make reset`).
 */
import type { BoardAccount } from '@gridlab/chain';
import type { EraStarts, OpenRound } from './game';
import type { Deploy, MinerModel } from './miner-model';
import type { Prng, PrngState } from './prng';

export const GAME_STATE_VERSION = 2;

export interface GameState {
  readonly version: typeof GAME_STATE_VERSION;
  readonly prng: PrngState;
  readonly minerWeights: readonly number[];
  readonly board: BoardAccount;
  readonly round: {
    readonly id: number;
    readonly deployed: readonly number[];
    readonly minersBySquare: readonly (readonly number[])[];
    /** Per square: [miner, lamports] pairs. */
    readonly stakeBySquare: readonly (readonly (readonly [number, number])[])[];
    readonly miners: readonly number[];
    readonly plan: readonly Deploy[];
    readonly next: number;
  };
  readonly firstDeploySlot: number;
  readonly motherlodePool: number;
  /** Lamports per whole ORE (the board's production-cost EMA). */
  readonly productionCost: number;
  /** Round ids at which the 952-byte layout and the `returns` rule begin. */
  readonly eras: EraStarts;
}

/** The fields of a Game besides its config, random generator and miner model. */
export interface GameFields {
  board: BoardAccount;
  round: OpenRound;
  firstDeploySlot: number;
  motherlodePool: number;
  productionCost: number;
}

/** A state this build cannot continue from. */
export class GameStateVersionError extends Error {
  constructor(readonly found: unknown) {
    super(`the saved game state has version ${JSON.stringify(found)}; this devnet continues only version ${GAME_STATE_VERSION}`);
  }
}

export function captureGameState(random: Prng, model: MinerModel, eras: EraStarts, fields: GameFields): GameState {
  const r = fields.round;
  return {
    version: GAME_STATE_VERSION,
    prng: random.state(),
    minerWeights: model.weights(),
    board: { ...fields.board },
    round: {
      id: r.id,
      deployed: [...r.deployed],
      minersBySquare: r.minersBySquare.map((set) => [...set]),
      stakeBySquare: r.stakeBySquare.map((map) => [...map.entries()]),
      miners: [...r.miners],
      plan: r.plan.map((d) => ({ ...d, squares: [...d.squares] })),
      next: r.next,
    },
    firstDeploySlot: fields.firstDeploySlot,
    motherlodePool: fields.motherlodePool,
    productionCost: fields.productionCost,
    eras: { ...eras },
  };
}

/**
 * Checks the saved state's version and returns its eras, and `apply`, which sets `random`
 * and `model` to the saved state and returns the game's other fields.
 */
export function restoreGameState(state: unknown): { eras: EraStarts; apply: (random: Prng, model: MinerModel) => GameFields } {
  const version = (state as { version?: unknown } | null)?.version;
  if (version !== GAME_STATE_VERSION) throw new GameStateVersionError(version);
  const s = state as GameState;
  return { eras: { ...s.eras }, apply: (random, model) => applyState(s, random, model) };
}

function applyState(s: GameState, random: Prng, model: MinerModel): GameFields {
  random.setState(s.prng);
  model.setWeights(s.minerWeights);
  return {
    board: { ...s.board },
    round: {
      id: s.round.id,
      deployed: [...s.round.deployed],
      minersBySquare: s.round.minersBySquare.map((m) => new Set(m)),
      stakeBySquare: s.round.stakeBySquare.map((pairs) => new Map(pairs)),
      miners: new Set(s.round.miners),
      plan: s.round.plan.map((d) => ({ ...d, squares: [...d.squares] })),
      next: s.round.next,
    },
    firstDeploySlot: s.firstDeploySlot,
    motherlodePool: s.motherlodePool,
    productionCost: s.productionCost,
  };
}
