import { int, loadConfig, serviceFields, str, type Env } from '@gridlab/config';

// The gateway serves /healthz, /readyz and /metrics on its API port, so it has no
// separate ops address.
const { OPS_HOST: _opsHost, OPS_PORT: _opsPort, ...SHARED } = serviceFields(0);

/** The gateway's settings; the only place it reads the environment. */
const SCHEMA = {
  ...SHARED,
  HOST: str({ default: '127.0.0.1', doc: 'Bind address of the HTTP API' }),
  PORT: int({ default: 8080, min: 0, max: 65535, doc: 'Port of the HTTP API (and /healthz, /readyz, /metrics)' }),
  REDIS_URL: str({ default: 'redis://127.0.0.1:6379', secret: true, doc: 'Redis connection URL' }),
};

export function loadGatewayConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
