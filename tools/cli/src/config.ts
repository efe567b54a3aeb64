import { loadConfig, str, type Env } from '@gridlab/config';

/**
 * The CLI reads the same variables as the services, so `gridlab` run beside a
 * deployment talks to that deployment's database.
 */
const SCHEMA = {
  DATABASE_URL: str({ default: 'postgres://postgres@127.0.0.1:5432/gridlab', secret: true }),
};

export type CliConfig = ReturnType<typeof loadCliConfig>;

export function loadCliConfig(env: Env = process.env) {
  return loadConfig(SCHEMA, env);
}
