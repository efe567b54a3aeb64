/**
 * The devnet's port of the ORE program (written from its Rust source, independent of
 * libs/chain): the rules a reset applies, the accounts and the events, as the devnet
 * plays them. Exported for the tests that hold the port against the real program.
 */
export { deployData, deployEvent, logData, resetEvent, INSTRUCTION, type DeployFields, type ResetFields } from './events';
export { hitsMotherlode, isSplitByRng, isSplitSquare, parimutuelReset, returnsReset, reverseBits, rng, topMinerSample, winningSquare, type ResetTotals } from './round-rules';
export { board, roundV3, roundV4, U64_MAX, type RoundFields } from './state';
export { PodReader } from './pod';
export { automate, automateData, automationV3, generateRandomMask, randomMaskSeed, readAutomationV3, AUTOMATION_V3_LENGTH, STRATEGY, type AutomateArgs, type AutomateOutcome, type AutomationV3 } from './automation';
export { automatedRequest, deploy, DeployRefused, RULES_2025_12, RULES_2026_01, type DeployInput, type DeployOutcome, type DeployRules, type RoundDeployState } from './deploy';
export {
  checkpoint,
  claimOre,
  claimSol,
  minerV3,
  newMiner,
  readMinerV3,
  readTreasuryV3,
  treasuryV3,
  updateRewards,
  CHECKPOINT_FEE,
  MINER_V3_LENGTH,
  TREASURY_V3_LENGTH,
  type CheckpointOutcome,
  type CheckpointRound,
  type MinerV3,
  type TreasuryV3,
} from './miner';
export { numericFraction, numericFromU64, numericMul, numericToU64 } from './numeric';
