/**
 * History from transactions: rounds whose accounts the program has closed, rebuilt from
 * their transactions within the RPC provider's limits (SPEC 3.2). Shared by the indexer,
 * which fills its history by itself, and `gridlab backfill`.
 */
export { TransactionHistory, ledgerRows, settleWhenDecided, storedRound, type FetchedRound } from './transaction-history';
export { fillHistory, type FillOptions, type FillProgress, type FillStore, type RefusedRound, type RoundWithMiners } from './history-filler';
