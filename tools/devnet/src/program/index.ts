/**
 * The devnet's port of the ORE program (written from its Rust source, independent of
 * libs/chain): the rules a reset applies, the accounts and the events, as the devnet
 * plays them. Exported for the tests that hold the port against the real program.
 */
export { deployData, deployEvent, logData, resetEvent, INSTRUCTION, type DeployFields, type ResetFields } from './events';
export { hitsMotherlode, isSplitByRng, isSplitSquare, parimutuelReset, returnsReset, reverseBits, rng, topMinerSample, winningSquare, type ResetTotals } from './round-rules';
export { board, roundV3, roundV4, U64_MAX, type RoundFields } from './state';
export { PodReader } from './pod';
