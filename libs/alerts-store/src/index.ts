/**
 * The notifier's data: the `alerts` schema's migrations, the rules and their secrets, the
 * firings and their delivery queue.
 */
import { join } from 'node:path';

export {
  DeliveryQueue,
  type AttemptOutcome,
  type Claimed,
  type Fired,
  type FiringState,
  type LoggedAttempt,
  type NewFiring,
  type Recorded,
  type TargetFormat,
} from './delivery-queue';
export { FiringLog, type StoredFiring } from './firing-log';
export { RuleStore, type NewRule, type RuleChange, type RuleTarget, type StoredRule } from './rule-store';

/** Schema owned by the notifier. */
export const ALERTS_SCHEMA = 'alerts';
/** node-pg-migrate directory of the alerts schema. */
export const ALERTS_MIGRATIONS_DIR = join(__dirname, '..', 'migrations');
