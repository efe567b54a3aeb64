import { ORE_PROGRAM_ID } from '@gridlab/chain';
import { int, list, loadConfig, oneOf, serviceFields, str, type Env } from '@gridlab/config';
import { DEFAULT_LEASE_POLICY } from './domain/token-lease';

// /metrics and the detailed /readyz are served on the ops address only (never
// on the public port). OPS_PORT defaults to 0 (any free port, logged) so several gateways
// can run side by side; deployments set it (9106) to scrape it.
const SHARED = serviceFields(0);

/** The gateway's settings; the only place it reads the environment. */
const SCHEMA = {
  ...SHARED,
  HOST: str({ default: '127.0.0.1', doc: 'Bind address of the HTTP API' }),
  PORT: int({ default: 8080, min: 0, max: 65535, doc: 'Port of the HTTP API (and /healthz, /readyz without dependency details)' }),
  REDIS_URL: str({ default: 'redis://127.0.0.1:6379', secret: true, doc: 'Redis connection URL' }),
  REDIS_PREFIX: str({ default: 'gridlab:', minLength: 0, doc: 'Prefix of every Redis key the gateway writes' }),
  REDIS_TIMEOUT_MS: int({ default: 50, min: 5, max: 5000, doc: 'Per-command Redis deadline before falling back' }),
  API_KEY_HMAC_SECRET: str({ secret: true, minLength: 32, doc: 'Server secret of the API key HMAC (shared with billing and the CLI)' }),
  TRUSTED_PROXIES: list({ default: [], doc: 'Proxy addresses or CIDR ranges (IPv4 or IPv6) whose X-Forwarded-For is believed' }),
  KEY_SHARING_POLICY: oneOf(['warn', 'revoke'] as const, {
    default: 'warn',
    doc: 'On a key_sharing signal: only warn (log, metric, NATS fact), or also revoke the key through billing',
  }),
  COMMAND_TIMEOUT_MS: int({ default: 10_000, min: 100, max: 120_000, doc: 'Deadline of a command sent to billing or the lab services' }),
  LAB_TIMEOUT_MS: int({ default: 30_000, min: 100, max: 600_000, doc: 'Deadline of a Strategy Lab backtest or analytics command (its whole reply, every chunk)' }),
  LIVE_STALE_AFTER_S: int({
    default: 90,
    min: 1,
    max: 86_400,
    doc: 'Seconds without a new live snapshot after which /live marks it stale and /readyz reports the live feed degraded (a little over one round)',
  }),
  RATE_LIMIT_LEASE_MS: int({
    default: DEFAULT_LEASE_POLICY.ttlMs,
    min: 0,
    max: 10_000,
    doc: 'How long a replica may serve a busy key from tokens it took ahead from the shared Redis bucket (0: one Redis call per request)',
  }),
  KEY_SHARING_MAX_ADDRESSES: int({ default: 3, min: 1, max: 1000, doc: 'Distinct client addresses per key within 5 minutes before a key_sharing signal' }),
  AUTH_FAILURE_BURST: int({ default: 20, min: 1, max: 100_000, doc: 'Failed authentications a client address (IPv6: /64) may make in a burst before 429 too_many_failed_auths' }),
  AUTH_FAILURES_PER_MINUTE: int({ default: 30, min: 1, max: 1_000_000, doc: 'Steady rate of failed authentications allowed per client address' }),
  NEGATIVE_KEY_CACHE_TTL_S: int({ default: 30, min: 1, max: 3600, doc: 'How long a key PostgreSQL did not know is answered 401 without a lookup (in process)' }),
  NEGATIVE_KEY_CACHE_SIZE: int({ default: 50_000, min: 100, max: 10_000_000, doc: 'Entries of that negative cache per process (oldest evicted first)' }),
  STREAMS_PER_KEY: int({ default: 5, min: 1, max: 10_000, doc: 'Concurrent SSE streams (/stream and /events/stream together) per API key and replica, then 429 too_many_streams' }),
  STREAMS_PER_ADDRESS: int({ default: 20, min: 1, max: 100_000, doc: 'Concurrent SSE streams per client address (IPv6: /64) and replica, then 429 too_many_streams_from_address' }),
  STREAM_EXPIRY_CHECK_S: int({ default: 30, min: 1, max: 60, doc: "How often open streams are checked against their key's paid period (closed once it has ended)" }),
  DUMPS_PER_KEY: int({ default: 1, min: 1, max: 100, doc: 'Concurrent NDJSON /dump streams per API key and replica, then 429 too_many_dumps' }),
  DUMPS_PER_ADDRESS: int({ default: 2, min: 1, max: 1000, doc: 'Concurrent NDJSON /dump streams per client address and replica, then 429 too_many_dumps_from_address' }),
  DUMP_POOL_SIZE: int({ default: 2, min: 1, max: 50, doc: 'PostgreSQL connections reserved for NDJSON dumps (their own pool; also the concurrent dumps of a replica, then 503 dumps_busy)' }),
  DUMP_IDLE_TIMEOUT_S: int({
    default: 30,
    min: 1,
    max: 3600,
    doc: 'The window over which an NDJSON dump must keep DUMP_MIN_RATE_KIB_S: a client that read less in it (nothing, or a few KB now and then) is dropped',
  }),
  DUMP_MIN_RATE_KIB_S: int({
    default: 64,
    min: 0,
    max: 1_048_576,
    doc: 'The slowest an NDJSON dump may be read, in KiB/s averaged over DUMP_IDLE_TIMEOUT_S (0: only a client that reads nothing is dropped)',
  }),
  DUMP_MAX_DURATION_S: int({
    default: 900,
    min: 1,
    max: 86_400,
    doc: 'An NDJSON dump still running after this long is ended (resume from the id after the last complete line)',
  }),
  LAB_JOBS_PER_KEY: int({ default: 2, min: 1, max: 100, doc: 'Strategy Lab backtests and analytics in flight per API key and replica, then 429 too_many_lab_jobs' }),
  POSITIVE_KEY_CACHE_TTL_S: int({ default: 60, min: 1, max: 600, doc: 'Keys authenticated within this long keep working while PostgreSQL is unreachable (in process; dropped at once by access.key.revoked)' }),
  SESSION_SECRET: str({
    secret: true,
    pattern: /^[A-Za-z0-9_-]{1,32}:[^,]{32,}(,[A-Za-z0-9_-]{1,32}:[^,]{32,})*$/,
    format: 'kid:secret[,kid:secret...], each secret at least 32 characters',
    doc: 'MAC keys of dashboard sessions by key id: the first signs new sessions, every one verifies (rotate by putting a new key first; drop a key to end every session it signed). Never the API key secret',
  }),
  SESSION_TTL_S: int({ default: 43_200, min: 5, max: 2_592_000, doc: 'Lifetime of a dashboard browser session (never beyond the paid period of its key)' }),
  DASHBOARD_ORIGINS: list({ default: [], doc: 'Origins besides PUBLIC_ORIGIN allowed to call /api/live (a dashboard served from another host)' }),
  PUBLIC_RPC_URL: str({
    default: '',
    minLength: 0,
    doc: "A Solana RPC URL browsers may use (CORS) for the dashboard's wallet payment: it reads the mint and a blockhash and sends the signed transfer; empty: the dashboard offers the Solana Pay link only",
  }),
  PUBLIC_ORIGIN: str({
    default: 'http://127.0.0.1:8080',
    pattern: /^https?:\/\/[^/\s?#]+$/,
    format: 'an origin: scheme://host[:port], no path',
    doc: "Public origin of the API and dashboard (the same as billing's): the origin /api/live requests must come from, the domain and URI of Sign-In With Solana messages, and the domain of a signed PUT /subscribe message",
  }),
  SOLANA_RPC_URL: str({
    default: '',
    minLength: 0,
    secret: true,
    doc: "Solana JSON-RPC endpoint the gateway reads a wallet's Miner account from for GET /miners/{address} (`claimable`, cached 5 s per wallet); empty: claimable is null",
  }),
  ORE_PROGRAM_ID: str({ default: ORE_PROGRAM_ID, doc: 'ORE program id (the Miner accounts are its PDAs)' }),
  WEB_ROOT: str({ default: '', minLength: 0, doc: 'Directory of the built dashboard served at / (default: apps/web/dist of this checkout)' }),
  POSITIVE_KEY_CACHE_SIZE: int({ default: 100_000, min: 100, max: 10_000_000, doc: 'Entries of that positive cache per process (oldest evicted first)' }),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
