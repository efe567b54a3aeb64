/**
 * The event log's data: the `events` schema's migrations, the reads the gateway serves
 * and the appends of the event-log writer.
 */
import { join } from 'node:path';

export { EventRepository, appendEvents, saveProgress, type NewEvent, type Progress } from './event-repository';
export { checkpointCounts, checkpointState, liveRoundEvents, saveCheckpoints, type Checkpoint, type CheckpointChange, type LiveEvent } from './rederive-store';

/** Schema owned by event-log. */
export const EVENTS_SCHEMA = 'events';
/** node-pg-migrate directory of the events schema. */
export const EVENTS_MIGRATIONS_DIR = join(__dirname, '..', 'migrations');
