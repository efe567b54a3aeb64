/**
 * The ORE program's own executable as the referee of Gridlab's model of it: LiteSVM
 * running the mainnet binary with mainnet accounts, and the instructions to play it. The
 * addresses, instructions, layouts and installation are the devnet's (`@gridlab/devnet/real`),
 * which runs the same executables for its live rounds.
 */
export * from '@gridlab/devnet/real';
export { grindSeedChain, type RoundDraw, type SeedChain } from './entropy';
export { Referee, TransactionFailed, type GameSetup, type TxOutcome } from './referee';
export { Game, INTERMISSION_SLOTS, type LamportMoves } from './game';
