import { bigRoundFields, int, loadConfig, serviceFields, str, type Env } from '@gridlab/config';

/** The lab-backtest service's settings; the only place it reads the environment. */
const SCHEMA = {
  ...serviceFields(9105),
  ...bigRoundFields(),
  REDIS_URL: str({ default: 'redis://127.0.0.1:6379', secret: true, doc: 'Redis holding the analytics cache' }),
  REDIS_PREFIX: str({ default: 'gridlab:', minLength: 0, doc: 'Prefix of every Redis key this service writes' }),
  LAB_WORKERS: int({
    default: 0,
    min: 0,
    max: 64,
    doc: 'Worker threads computing backtests and analytics (0: one per CPU, as the Kubernetes manifest sets one per core of the CPU limit; the serving thread only moves messages, and the OS schedules it between them; one client runs at most half of them, at least one, at once; an analytics call is split into a share per worker, its shares counting as one)',
  }),
  LAB_MAX_QUEUE: int({ default: 32, min: 1, max: 10_000, doc: 'Requests waiting for a worker before new ones are refused with 503' }),
  LAB_QUEUE_WAIT_MS: int({
    default: 30_000,
    min: 100,
    max: 600_000,
    doc: 'A request still waiting for a worker after this long is dropped (its caller has given up; keep it at the gateway deadline)',
  }),
  ANALYTICS_CACHE_TTL_S: int({ default: 600, min: 1, max: 86_400, doc: 'Lifetime of a cached analytics result' }),
  CATCH_UP_INTERVAL_MS: int({ default: 5_000, min: 50, max: 600_000, doc: 'How often PostgreSQL is checked for rounds the bus did not announce' }),
};

export type ServiceConfig = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
