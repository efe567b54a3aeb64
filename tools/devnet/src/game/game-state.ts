/**
 * The game's state as a versioned, JSON-safe object, for the devnet's ledger file. The
 * game is a pure function of its settings at genesis and the slot (every round is
 * derived from the seed), so the state is just those settings: a restarted devnet plays
 * the game again up to the saved slot and continues it, with the settings the chain was
 * started with (a chain does not change its history when a setting changes).
 *
 * Bump GAME_STATE_VERSION whenever the shape or meaning of the state or of the game
 * changes (another miner model, another round layout, ...): a ledger file holding another
 * version is refused with a message telling the user to start from genesis (`make reset`).
 */
import type { RoundContext } from './derive-round';

const GAME_STATE_VERSION = 6;

export interface GameState {
  readonly version: typeof GAME_STATE_VERSION;
  readonly config: RoundContext;
  readonly historyRounds: number;
  readonly genesisSlot: number;
}

/** A state this build cannot continue from. */
export class GameStateVersionError extends Error {
  constructor(readonly found: unknown) {
    super(`the saved game state has version ${JSON.stringify(found)}; this devnet continues only version ${GAME_STATE_VERSION}`);
  }
}

export function captureGameState(config: RoundContext, historyRounds: number, genesisSlot: number): GameState {
  return { version: GAME_STATE_VERSION, config: { ...config, eras: { ...config.eras } }, historyRounds, genesisSlot };
}

/** Checks the saved state's version; throws GameStateVersionError for another. */
export function restoreGameState(state: unknown): GameState {
  const version = (state as { version?: unknown } | null)?.version;
  if (version !== GAME_STATE_VERSION) throw new GameStateVersionError(version);
  return state as GameState;
}
