/**
 * The ORE program's mainnet executables and what it takes to run them in LiteSVM: program
 * ids and PDAs, the instructions as the program's SDK builds them, account layouts, the
 * entropy commit-reveal, the ore-mint stand-in, and their installation. The devnet runs
 * them for its live rounds in real-program mode (real-game.ts); @gridlab/referee plays
 * chosen rounds on them.
 */
export * from './addresses';
export * as ix from './instructions';
export type { Era } from './instructions';
export * from './layouts';
export { fallbackSlotHash, keccak, u64Le, varValue } from './entropy';
export { FIXTURES, fixture, installOre, type InstalledOre, type PutAccount } from './install';
export { noopProgram } from './mint-stub';
