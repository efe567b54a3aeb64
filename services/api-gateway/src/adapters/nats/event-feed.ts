import { decodeEvent, type NatsConnection } from '@gridlab/bus';
import { type LogEvent, type NatsNames } from '@gridlab/contracts';
import type { EventRepository } from '@gridlab/events-store';
import type { Logger } from '@gridlab/logger';

/** How often the tail of the log is checked in PostgreSQL, for announcements the bus lost. */
const POLL_MS = 2000;

/**
 * The appended events in id order, without gaps, for this gateway process: announcements
 * arrive on NATS; the next expected id is taken from the message itself, anything after
 * a jump is read from PostgreSQL (the source of truth), and a timer reads the tail in
 * case the last announcement was lost. Listeners see every event exactly once, ascending.
 */
export class EventFeed {
  private lastId = 0;
  private readonly listeners = new Set<(event: LogEvent) => void>();
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repo: EventRepository,
    private readonly logger: Logger,
  ) {}

  /** The id of the newest event delivered to listeners. */
  get last(): number {
    return this.lastId;
  }

  async start(nc: NatsConnection, names: NatsNames): Promise<() => void> {
    this.lastId = await this.repo.lastId().catch(() => 0);
    const sub = nc.subscribe(names.subjects.eventAppended, {
      callback: (error, msg) => {
        if (error !== null) return;
        try {
          const event = decodeEvent('eventAppended', msg.data);
          this.enqueue(() => this.advance(event));
        } catch (e) {
          this.logger.warn('undecodable event announcement ignored', { err: e });
        }
      },
    });
    this.timer = setInterval(() => this.enqueue(() => this.readAfter(this.lastId, Number.MAX_SAFE_INTEGER)), POLL_MS);
    this.timer.unref();
    return () => {
      this.stopped = true;
      clearInterval(this.timer);
      sub.unsubscribe();
    };
  }

  onEvent(listener: (event: LogEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((error: unknown) => {
      this.logger.warn('event feed could not read the log', { err: error });
    });
  }

  private async advance(event: LogEvent): Promise<void> {
    if (this.stopped || event.id <= this.lastId) return;
    // Ids have no holes: a jump means announcements were lost; read them from the log.
    if (event.id !== this.lastId + 1) await this.readAfter(this.lastId, event.id - 1);
    if (event.id > this.lastId) this.emit(event);
  }

  private async readAfter(after: number, upTo: number): Promise<void> {
    if (this.stopped) return;
    for (const event of await this.repo.between(after, upTo)) if (event.id > this.lastId) this.emit(event);
  }

  private emit(event: LogEvent): void {
    this.lastId = event.id;
    for (const listener of this.listeners) listener(event);
  }
}
