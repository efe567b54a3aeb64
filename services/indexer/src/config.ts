import { ORE_PROGRAM_ID, parseRpcLimits, parseRpcLimitsSetting, PUBLIC_MAINNET_LIMITS, type RpcLimits } from '@gridlab/chain';
import { bool, int, loadConfig, num, serviceFields, str, type Env, type Field } from '@gridlab/config';

/** HISTORY_FROM_ROUND: a round id, or `auto` (see the schema's doc). */
function historyFloor(doc: string): Field<number | 'auto'> {
  return {
    parse: (raw) => {
      if (raw.trim() === 'auto') return 'auto';
      if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) throw new Error('must be a round id or auto');
      return Number(raw);
    },
    default: 'auto',
    secret: false,
    doc,
  };
}

/** RPC_LIMITS: a budget list (see parseRpcLimits), or `none` for a node with no limits (the local devnet). */
function rpcLimits(doc: string): Field<RpcLimits> {
  return { parse: parseRpcLimitsSetting, default: parseRpcLimits(PUBLIC_MAINNET_LIMITS), secret: false, doc };
}

/** The indexer's settings; the only place it reads the environment. */
const SCHEMA = {
  ...serviceFields(9101),
  SOLANA_RPC_URL: str({ default: 'http://127.0.0.1:8899', doc: 'Solana JSON-RPC HTTP endpoint' }),
  SOLANA_WS_URL: str({ default: 'ws://127.0.0.1:8900', doc: 'Solana PubSub WebSocket endpoint' }),
  ORE_PROGRAM_ID: str({ default: ORE_PROGRAM_ID, doc: 'ORE program id' }),
  POLL_INTERVAL_MS: int({ default: 1000, min: 100, max: 60_000, doc: 'Polling fallback interval' }),
  SLOT_SECONDS: num({ default: 0.4, min: 0.001, max: 60, doc: 'Slot length used for secondsLeft' }),
  RPC_LIMITS: rpcLimits(`The RPC provider's budgets, <method>=<calls>/<window> comma-separated (default=, all=; e.g. ${PUBLIC_MAINNET_LIMITS}), or none`),
  RPC_BATCH_MAX: int({ default: 100, min: 1, max: 1000, doc: 'Calls per JSON-RPC batch request (1: no batches, for providers that refuse them)' }),
  RPC_CONCURRENCY: int({ default: 4, min: 1, max: 64, doc: 'HTTP requests to the RPC in flight at once' }),
  HISTORY_FILL: bool({ default: true, doc: 'Rebuild rounds whose accounts are closed from their transactions' }),
  HISTORY_FROM_ROUND: historyFloor(
    'The lowest round id the history fill rebuilds; auto: the oldest round the indexer found on chain when it first started (kept), so every round from then on is kept however long it is away',
  ),
  HISTORY_CONCURRENCY: int({ default: 4, min: 1, max: 64, doc: 'Rounds the history fill fetches at once' }),
  MINER_LEDGER: bool({
    default: true,
    doc: "Read every settled round's transactions for its miners' rows (the ledger, /miners) and the live round's for its deploys: about one getTransaction per deploy",
  }),
  LIVE_EV_STAKE_LAMPORTS: int({ default: 100_000_000, min: 1, max: 1_000_000_000_000_000, doc: 'The stake the live snapshot shows each square\'s EV per SOL for' }),
  WS_PING_MS: int({ default: 30_000, min: 1000, max: 600_000, doc: 'How often the account feed pings its WebSocket' }),
};

export type IndexerConfig = ReturnType<typeof loadIndexerConfig>;

export function loadIndexerConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
