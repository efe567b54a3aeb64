import { int, loadConfig, num, serviceFields, str, type Env } from '@gridlab/config';

/** The indexer's settings; the only place it reads the environment. */
const SCHEMA = {
  ...serviceFields(9101),
  SOLANA_RPC_URL: str({ default: 'http://127.0.0.1:8899', doc: 'Solana JSON-RPC HTTP endpoint' }),
  SOLANA_WS_URL: str({ default: 'ws://127.0.0.1:8900', doc: 'Solana PubSub WebSocket endpoint' }),
  ORE_PROGRAM_ID: str({ default: 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv', doc: 'ORE program id' }),
  POLL_INTERVAL_MS: int({ default: 1000, min: 100, max: 60_000, doc: 'Polling fallback interval' }),
  SLOT_SECONDS: num({ default: 0.4, min: 0.001, max: 60, doc: 'Slot length used for secondsLeft' }),
};

export type IndexerConfig = ReturnType<typeof loadIndexerConfig>;

export function loadIndexerConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
