/**
 * The indexer's PostgreSQL schema and its data access: packed rounds, aggregates kept
 * in step with every insert, bulk COPY insert and the history import pipeline. Shared
 * by the indexer service and the operator CLI (`gridlab import`).
 */
import { join } from 'node:path';

export { RoundRepository, rowToRound, type GapRange, type RoundOutcome, type StoredAggregates } from './round.repository';
export { ChainIdentityStore, type ChainIdentity } from './chain-identity';
export { roundReads } from './reads';
export { RoundColumnsReader, TupleParser, OutOfOrder, REPLAY_COLUMNS, type ColumnRound, type RoundColumnSink } from './round-columns';
export { copyOut, type CopyDataSink } from './copy-out';
export { packSquares, unpackSquares } from './packing';
export { exportRoundsNdjson } from './ndjson-export';
export { ContiguousRounds, ContiguousReader, type ContiguousReaderOptions, type FillLookup, type FillState, type SkippedIds } from './contiguous-rounds';
export { HistoryStore, historyFillStore, type MissingState, type RefusedRoundRecord, type UnrecoverableRound } from './history-store';
export { advanceDroughts, emptyDroughts, sumRounds, type DroughtState, type RoundSums, type RuleSums } from './aggregates';
export { PAYOUT_RULE_CODES, ROUND_COLUMNS } from './rounds-table';
export { encodeCopyBinary } from './round-batch';
export { DEFAULT_IMPORT_BATCH, importRounds, type ImportOptions, type ImportProgress, type ImportSummary } from './import/import-rounds';

/** Schema owned by the indexer. */
export const INDEXER_SCHEMA = 'indexer';
/** node-pg-migrate directory of the indexer schema. */
export const INDEXER_MIGRATIONS_DIR = join(__dirname, '..', 'migrations');
