import { loadConfig, serviceFields, type Env } from '@gridlab/config';

/** The lab-forward service's settings; the only place it reads the environment. */
const SCHEMA = { ...serviceFields(9104) };

export type ServiceConfig = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
