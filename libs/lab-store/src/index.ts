/**
 * The Strategy Lab's data (SPEC 7.10): the `lab` schema's migrations, the command
 * handlers' reads and session changes, and the forward writer's settlements.
 */
import { join } from 'node:path';

export {
  StrategyStore,
  SessionTx,
  toStrategy,
  toStats,
  type StrategyRow,
  type StatsRow,
  type SettledPnl,
  type LeaderboardRow,
} from './strategy-store';
export { ForwardStore, WriterTx, type SettledHit, type ActiveSession, type SessionState, type PredictionRow, type SettlementRow, type StopRow } from './forward-store';

/** Schema owned by lab-forward. */
export const LAB_SCHEMA = 'lab';
/** node-pg-migrate directory of the lab schema. */
export const LAB_MIGRATIONS_DIR = join(__dirname, '..', 'migrations');
