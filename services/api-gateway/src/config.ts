import { int, loadConfig, oneOf, str, type Env } from '@gridlab/config';

/** The gateway's settings; the only place it reads the environment. */
const SCHEMA = {
  HOST: str({ default: '127.0.0.1', doc: 'Bind address of the HTTP API' }),
  PORT: int({ default: 8080, min: 0, max: 65535, doc: 'Port of the HTTP API (and /healthz, /readyz, /metrics)' }),
  DATABASE_URL: str({ default: 'postgres://postgres@127.0.0.1:5432/gridlab', secret: true, doc: 'PostgreSQL connection URL' }),
  NATS_URL: str({ default: 'nats://127.0.0.1:4222', doc: 'NATS servers, comma-separated' }),
  NATS_PREFIX: str({ default: '', minLength: 0, doc: 'Subject/stream namespace (empty in production)' }),
  REDIS_URL: str({ default: 'redis://127.0.0.1:6379', secret: true, doc: 'Redis connection URL' }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'] as const, { default: 'info' }),
};

export function loadGatewayConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
