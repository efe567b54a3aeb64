/**
 * The stored forms, for loading the ledger in bulk (the scale bench builds 30 days of
 * mainnet-sized data with them, as the compaction would have left it): a row, its
 * rollup, a packed block.
 */
export { encodeBlock, BLOCK_ROUNDS } from './block';
export { addRollup, emptyRollup, rollupOf, ROLLUP_COLUMNS, type Rollup } from './rollup';
export { FLAG_HELD_WINNER, FLAG_KNOWN, FLAG_SPLIT, FLAG_TOP_MINER, type StoredRow } from './row';
export { STORED_COLUMN_LIST, PARTITION_ROUNDS } from './ledger-writer';
