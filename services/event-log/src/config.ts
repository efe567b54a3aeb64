import { int, loadConfig, oneOf, str, type Env } from '@gridlab/config';

/** The event-log service's settings; the only place it reads the environment. */
const SCHEMA = {
  DATABASE_URL: str({ default: 'postgres://postgres@127.0.0.1:5432/gridlab', secret: true, doc: 'PostgreSQL connection URL' }),
  NATS_URL: str({ default: 'nats://127.0.0.1:4222', doc: 'NATS servers, comma-separated' }),
  NATS_PREFIX: str({ default: '', minLength: 0, doc: 'Subject/stream namespace (empty in production)' }),
  OPS_HOST: str({ default: '127.0.0.1', doc: 'Bind address of /healthz, /readyz, /metrics' }),
  OPS_PORT: int({ default: 9103, min: 0, max: 65535 }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'] as const, { default: 'info' }),
};

export function loadServiceConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
