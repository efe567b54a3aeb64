import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The indexer's Prometheus metrics, registered on the service's registry. */
export function indexerMetrics(registry: Registry) {
  return {
    decodeErrors: new Counter({ name: 'indexer_decode_errors_total', help: 'Accounts that failed to decode, by reason', labelNames: ['code'], registers: [registry] }),
    ruleMismatches: new Counter({ name: 'indexer_rule_mismatch_total', help: 'Settled rounds that neither payout rule reproduces (not stored)', registers: [registry] }),
    rpcErrors: new Counter({ name: 'indexer_rpc_errors_total', help: 'Failed Solana RPC calls', registers: [registry] }),
    wsReconnects: new Counter({ name: 'indexer_ws_reconnects_total', help: 'WebSocket reconnections', registers: [registry] }),
    storeErrors: new Counter({ name: 'indexer_store_errors_total', help: 'Failed PostgreSQL or NATS writes (retried)', registers: [registry] }),
    roundsSettled: new Counter({ name: 'indexer_rounds_settled_total', help: 'Settled rounds stored by this process', registers: [registry] }),
    lastStored: new Gauge({ name: 'indexer_last_round_stored_timestamp_seconds', help: 'When this process last stored a settled round (Unix seconds; the lag alert compares it with now)', registers: [registry] }),
    snapshots: new Counter({ name: 'indexer_snapshots_published_total', help: 'Live snapshots published', registers: [registry] }),
    linesWritten: new Counter({ name: 'indexer_round_lines_written_total', help: 'Dump lines stored for stored rounds (round_lines)', registers: [registry] }),
    gapRounds: new Gauge({ name: 'indexer_gap_rounds', help: 'Round ids missing between stored rounds', registers: [registry] }),
    leader: new Gauge({ name: 'indexer_leader', help: '1 while this process holds the leader lock', registers: [registry] }),
    rpcRequests: new Counter({
      name: 'indexer_rpc_requests_total',
      help: 'HTTP requests to the Solana RPC, by method (batch:<method> for a batch) and outcome (ok, rate_limited, rpc_error, http_error, unreachable)',
      labelNames: ['method', 'outcome'],
      registers: [registry],
    }),
    rpcCalls: new Counter({ name: 'indexer_rpc_calls_total', help: 'Solana RPC calls, counting each call of a batch, by method', labelNames: ['method'], registers: [registry] }),
    rpcSeconds: new Histogram({
      name: 'indexer_rpc_request_seconds',
      help: 'Duration of HTTP requests to the Solana RPC, by method',
      labelNames: ['method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    historyRemaining: new Gauge({ name: 'indexer_history_rounds_remaining', help: 'Rounds from the history floor up that are not stored and not waiting for a retry', registers: [registry] }),
    historyRounds: new Counter({ name: 'indexer_history_rounds_rebuilt_total', help: 'Rounds rebuilt from their transactions and stored', registers: [registry] }),
    historyPartial: new Counter({ name: 'indexer_history_rounds_partial_total', help: 'Rounds rebuilt and stored partly known: automated deploys before 2025-12-30 that do not show their squares (source transactions_partial)', registers: [registry] }),
    historyTransactions: new Counter({ name: 'indexer_history_transactions_total', help: 'Transactions fetched and decoded to rebuild rounds', registers: [registry] }),
    historyRefused: new Counter({ name: 'indexer_history_rounds_refused_total', help: 'Rounds not rebuilt from their transactions, by reason (not stored; tried again later, a retry refused again counts again)', labelNames: ['reason'], registers: [registry] }),
    historyRetried: new Counter({ name: 'indexer_history_rounds_retried_total', help: 'Refused rounds tried again once their back-off was over', registers: [registry] }),
    historyRecovered: new Counter({ name: 'indexer_history_rounds_recovered_total', help: 'Refused rounds stored on a retry', registers: [registry] }),
    historyRefusedWaiting: new Gauge({ name: 'indexer_history_rounds_refused', help: 'Refused rounds waiting for their next retry (rows of indexer.unrecoverable_rounds), by reason', labelNames: ['reason'], registers: [registry] }),
    minerRows: new Counter({ name: 'indexer_miner_rows_total', help: "Miner-round rows stored (every wallet's side of a settled round)", registers: [registry] }),
    minerRoundsDeferred: new Counter({
      name: 'indexer_miner_rounds_deferred_total',
      help: "Settled rounds whose transactions did not give their miners yet (not finalized, or refused), by reason; tried again with back-off",
      labelNames: ['reason'],
      registers: [registry],
    }),
    minerDeploysPublished: new Counter({ name: 'indexer_miner_deploys_published_total', help: "Deploys of the live round read from their transactions and published", registers: [registry] }),
    historySkipped: new Counter({ name: 'indexer_history_skipped_total', help: 'Instructions and events of rounds\' transactions that did not decode and were skipped, by reason', labelNames: ['reason'], registers: [registry] }),
  };
}

export type IndexerMetrics = ReturnType<typeof indexerMetrics>;
