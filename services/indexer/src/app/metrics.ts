import { Counter, Gauge, type Registry } from 'prom-client';

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
  };
}

export type IndexerMetrics = ReturnType<typeof indexerMetrics>;
