import { bigRoundFields, int, loadConfig, serviceFields, type Env } from '@gridlab/config';

/** The event-log service's settings; the only place it reads the environment. */
const SCHEMA = {
  ...serviceFields(9103),
  EVENT_DROUGHT_THRESHOLD: int({ default: 100, min: 1, max: 1_000_000, doc: 'drought_broken: rounds without a win' }),
  ...bigRoundFields(),
  EVENT_STREAK_MIN_LENGTH: int({ default: 3, min: 2, max: 1000, doc: 'streak: shortest run reported' }),
  EVENT_MILESTONE_ROUNDS: int({ default: 10_000, min: 1, max: 1_000_000_000, doc: 'milestone: every this many round ids' }),
  EVENT_MILESTONE_SOL: int({ default: 100_000, min: 1, max: 1_000_000_000, doc: 'milestone: every this many cumulative SOL' }),
  EVENT_CHECKPOINT_ROUNDS: int({ default: 1000, min: 1, max: 1_000_000, doc: 'A checkpoint of the derivation state every this many rounds: a round stored below the watermark is derived again from the checkpoint below it' }),
  CATCH_UP_INTERVAL_MS: int({ default: 2000, min: 50, max: 600_000, doc: 'How often PostgreSQL is checked for rounds and facts the bus did not announce' }),
  GAP_WAIT_MS: int({ default: 60_000, min: 0, max: 86_400_000, doc: 'How long a missing round id holds derivation back before it is skipped' }),
};

export type ServiceConfig = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
