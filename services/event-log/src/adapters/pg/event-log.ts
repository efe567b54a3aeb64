import type { LogEvent } from '@gridlab/contracts';
import { withTransaction, type Pool } from '@gridlab/db';
import {
  appendEvents,
  checkpointCounts,
  checkpointState,
  EventRepository,
  liveRoundEvents,
  saveCheckpoints,
  saveProgress,
  type Checkpoint,
  type CheckpointChange,
  type LiveEvent,
  type NewEvent,
  type Progress,
} from '@gridlab/events-store';
import type { EventLog } from '../../app/ports';

/** The event log in the `events` schema (events-store's SQL), each append one transaction. */
export class PgEventLog implements EventLog {
  private readonly events: EventRepository;

  constructor(private readonly pool: Pool) {
    this.events = new EventRepository(pool);
  }

  progress(): Promise<Progress> {
    return this.events.progress();
  }

  append(events: readonly NewEvent[], progress: Partial<Progress>): Promise<LogEvent[]> {
    return withTransaction(this.pool, async (client) => {
      const added = await appendEvents(client, events);
      await saveProgress(client, progress);
      return added;
    });
  }

  commitRounds(events: readonly NewEvent[], progress: Partial<Progress>, checkpoints: CheckpointChange): Promise<LogEvent[]> {
    return withTransaction(this.pool, async (client) => {
      const added = await appendEvents(client, events);
      await saveProgress(client, progress);
      await saveCheckpoints(client, checkpoints);
      return added;
    });
  }

  liveRoundEvents(range: { after: number | null; upTo: number }, keys: readonly string[]): Promise<LiveEvent[]> {
    return liveRoundEvents(this.pool, range, keys);
  }

  checkpoints(): Promise<Omit<Checkpoint, 'state'>[]> {
    return checkpointCounts(this.pool);
  }

  checkpointState(roundId: number): Promise<unknown> {
    return checkpointState(this.pool, roundId);
  }
}
