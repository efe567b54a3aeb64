/**
 * Every miner's ledger (docs/miner-ledger-storage.md): one row per wallet and settled
 * round, in the indexer's schema. The indexer writes; the gateway reads.
 */
export type { MinerLedgerReads, MinerRoundPage } from './ports';
export { MinerLedgerStore } from './ledger-reads';
export { MinerLedgerWriter, PARTITION_ROUNDS, type LedgerEntry, type LedgerRound } from './ledger-writer';
export { BLOCK_ROUNDS } from './block';
export { ndjsonLine } from './ndjson';
