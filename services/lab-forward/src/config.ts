import { bigRoundFields, int, loadConfig, serviceFields, type Env } from '@gridlab/config';

/** The lab-forward service's settings; the only place it reads the environment. */
const SCHEMA = {
  ...serviceFields(9104),
  ...bigRoundFields(),
  LAB_MIN_ROUNDS_TO_QUALIFY: int({ default: 1000, min: 1, max: 100_000_000, doc: 'Settled rounds a strategy needs to appear on the leaderboard' }),
  LAB_LEADERBOARD_SIZE: int({ default: 100, min: 1, max: 100_000, doc: 'Entries kept on the leaderboard' }),
  CATCH_UP_INTERVAL_MS: int({ default: 1000, min: 50, max: 600_000, doc: 'How often PostgreSQL is checked for rounds and strategies the bus did not announce' }),
  LAB_DELETED_RETENTION_DAYS: int({
    default: 30,
    min: 1,
    max: 3650,
    doc: 'Days a deleted strategy can be restored (POST /lab/strategies/{id}/restore) before it is purged for good with its record',
  }),
  LAB_PURGE_INTERVAL_MS: int({ default: 3_600_000, min: 100, max: 86_400_000, doc: 'How often strategies deleted longer ago than LAB_DELETED_RETENTION_DAYS are purged' }),
  GAP_WAIT_MS: int({ default: 60_000, min: 0, max: 86_400_000, doc: 'How long a missing round id holds settlement back before it is skipped' }),
};

export type ServiceConfig = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
