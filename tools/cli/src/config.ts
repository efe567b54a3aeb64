import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, str, type Env } from '@gridlab/config';
import { ConfigError } from '@gridlab/errors';

/**
 * The CLI reads the same variables as the services, so `gridlab` run beside a
 * deployment talks to that deployment's database, cache and secret.
 */
const SCHEMA = {
  DATABASE_URL: str({ default: 'postgres://postgres@127.0.0.1:5432/gridlab', secret: true }),
  REDIS_URL: str({ default: 'redis://127.0.0.1:6379', secret: true }),
  REDIS_PREFIX: str({ default: 'gridlab:', minLength: 0 }),
};

/** This checkout's local data (git-ignored): the generated API key secret, the devnet ledger. */
export const LOCAL_DATA_DIR = join(__dirname, '..', '..', '..', '.gridlab');
/** Where `make start` keeps this checkout's generated API key secret. */
const LOCAL_SECRET_FILE = join(LOCAL_DATA_DIR, 'api-key-hmac-secret');

export function loadCliConfig(env: Env = process.env) {
  return loadConfig(SCHEMA, env);
}

/**
 * The API key HMAC secret: API_KEY_HMAC_SECRET, else the one `make start` generated
 * for this checkout. Keys hashed with another secret would never match.
 */
export function apiKeySecret(env: Env = process.env): string {
  const fromEnv = env['API_KEY_HMAC_SECRET'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (existsSync(LOCAL_SECRET_FILE)) return readFileSync(LOCAL_SECRET_FILE, 'utf8').trim();
  throw new ConfigError('invalid configuration: API_KEY_HMAC_SECRET is required (or run `make start` once to generate a local one)');
}
