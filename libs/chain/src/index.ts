/**
 * ORE v3 on-chain data: account codecs (Board, Round; 560/568-byte layouts), PDAs, the
 * winning-square RNG and the settlement rule (pure functions), and a small Solana
 * JSON-RPC client for the calls services make (the only I/O here).
 */
export * as layout from './ore-layout';
export { decodeRound, encodeRound, type RoundAccount, type RoundAccountInput, type RoundLayout } from './round.codec';
export { decodeBoard, encodeBoard, type BoardAccount } from './board.codec';
export { winningSquare, isVoidedSlotHash, slotHashRng } from './rng';
export { settleRound, type SettlementTotals } from './settlement';
export { OrePdas } from './pda';
export { toSettledRound } from './settled-round';
export { toHex } from './bytes';
export { SolanaRpc, type RawAccount } from './rpc-client';
