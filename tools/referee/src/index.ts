/**
 * The ORE program's own executable as the referee of Gridlab's model of it: LiteSVM
 * running the mainnet binary with mainnet accounts, and the instructions to play it.
 */
export * from './addresses';
export * as ix from './instructions';
export type { Era } from './instructions';
export * from './layouts';
export { fallbackSlotHash, grindSeedChain, keccak, varValue, type RoundDraw, type SeedChain } from './entropy';
export { Referee, TransactionFailed, FIXTURES, type GameSetup, type TxOutcome } from './referee';
export { Game, INTERMISSION_SLOTS, type LamportMoves } from './game';
