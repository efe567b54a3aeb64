/**
 * ORE on-chain data: account codecs (Board; Round in its 560/568-byte v3 and 952-byte
 * current layouts), PDAs, the winning-square RNG, both payout rules and the inference
 * of a round's rule (pure functions), and a small Solana JSON-RPC client for the calls
 * services make (the only I/O here).
 */
export * as layout from './ore-layout';
export { ORE_PROGRAM_ID } from './ore-layout';
export {
  decodeRound,
  encodeRound,
  splitAddressBytes,
  type RoundAccount,
  type RoundAccountInput,
  type RoundLayout,
} from './round.codec';
export { decodeBoard, encodeBoard, productionCost, type BoardAccount } from './board.codec';
export { winningSquare, isVoidedSlotHash, slotHashRng } from './rng';
export { settleRound, settleReturns, settleBy, solBack, type PayoutRule, type SettlementTotals } from './settlement';
export { inferPayoutRule, ruleFromTotals, type RuleInference, type RuleBasis } from './payout-rule';
export { OrePdas } from './pda';
export { toSettledRound, type SettlementContext } from './settled-round';
export { minerFacts, minerRounds, roundDraw, settleMinerFacts, type LedgerInput, type MinerFacts } from './miner-ledger';
export { MinerRows, type MinerFigure, type MinerRowInput, type MinerRowsBuilder, type MinerRowsRound } from './miner-rows';
export { toHex } from './bytes';
export { decodeBase58, encodeBase58 } from './base58';
export { SolanaRpc, retryAfterMs, type RawAccount, type SignatureInfo, type Commitment, type RpcOutcome, type RpcObserver, type SolanaRpcOptions } from './rpc-client';
export { parseRpcLimits, parseRpcLimitsSetting, budgetOf, callsPerSecond, NO_LIMITS, PUBLIC_MAINNET_LIMITS, SlidingWindow, type Budget, type RpcLimits } from './rpc-limits';
export {
  ORE_IX,
  RESET_EVENT_LENGTHS,
  decodeOreEvent,
  encodeResetEvent,
  encodeDeployEvent,
  encodeDeployArgs,
  decodeDeployArgs,
  logInstructionData,
  varValueFromLogs,
  VAR_VALUE_LOG_PREFIX,
  type ResetEvent,
  type ResetEventInput,
  type ResetEventLength,
  type DeployEvent,
  type DeployEventInput,
  type DeployArgs,
  type OreEvent,
} from './events';
export { readOreTransaction, createAccountData, SYSTEM_PROGRAM, type TransactionJson, type InstructionJson, type OreTransaction, type OreIds } from './transactions';
export { popcount, rebuildRound, ROUND_EXPIRY_SLOTS, type RebuildInput, type RebuildResult, type RebuildRefusal, type RoundDeploy, type UnknownFigures } from './rebuild-round';
export { distributionMask, isSplitSquare, isSplitByRng } from './distribution';
export { squareEv, boardEv, bestSquares, expectedOre, MOTHERLODE_ODDS, type EvRound, type SquareEv } from './expected-value';
export { decodeMinerClaims, MINER_DISCRIMINATOR, type MinerClaims } from './miner.codec';
export { decodeTreasury, encodeTreasury, TREASURY_DISCRIMINATOR, type TreasuryAccount } from './treasury.codec';
export { rpcEndpoint, type RpcEndpoint } from './rpc-endpoint';
