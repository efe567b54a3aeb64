import type { ServerResponse } from 'node:http';
import { eventMatchesKind, type EventKind, type LogEvent } from '@gridlab/contracts';
import type { EventRepository } from '@gridlab/events-store';
import type { EventFeed } from '../adapters/nats/event-feed';
import { startEventStream } from './sse';

const PING_MS = 15_000;
const PING = Buffer.from(': ping\n\n');
/** Events replayed when neither `since` nor Last-Event-ID is given (SPEC 6). */
const DEFAULT_REPLAY = 50;
const REPLAY_PAGE = 1000;
/**
 * A client with this much unsent is too slow to follow the log: its connection is
 * closed (destroyed), and it resumes with Last-Event-ID from the log itself (no queue
 * grows here).
 */
const SLOW_CLIENT_BYTES = 1024 * 1024;
/** Live events held for a client while its replay is still being read. */
const MAX_PENDING = 10_000;

interface Client {
  readonly res: ServerResponse;
  readonly kind: EventKind | undefined;
  /** Id of the last event written (or skipped by the kind filter): nothing at or below it is sent again. */
  cursor: number;
  /** Live events that arrived during the replay; null once the client is live. */
  pending: LogEvent[] | null;
}

const frame = (event: LogEvent): string => `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * /events/stream: a replay from the log (the last 50 events, or everything after
 * `since` / Last-Event-ID), then the live events, with no gap and no duplicate across the
 * boundary: the client is registered for live events before the replay is read, live
 * events are held until the replay is written, and every write is filtered by the
 * client's cursor.
 */
export class EventStream {
  private readonly clients = new Set<Client>();
  private readonly pingTimer: NodeJS.Timeout;
  private readonly stopFollowing: () => void;

  constructor(
    private readonly repo: EventRepository,
    feed: EventFeed,
    /** Told of every page of the log read for a replay (metrics). */
    private readonly onReplayPage: () => void = () => undefined,
  ) {
    this.stopFollowing = feed.onEvent((event) => this.broadcast(event));
    this.pingTimer = setInterval(() => this.ping(), PING_MS);
    this.pingTimer.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Takes over an authorized request's response; `since` null means "the last 50". */
  async attach(res: ServerResponse, headers: Record<string, string>, since: number | null, kind: EventKind | undefined): Promise<void> {
    const client: Client = { res, kind, cursor: since ?? 0, pending: [] };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
    try {
      const replay = since === null ? await this.repo.latest(DEFAULT_REPLAY, kind) : await this.repo.after(since, REPLAY_PAGE, kind);
      this.onReplayPage();
      startEventStream(res, headers);
      res.write(': connected\n\n');
      let page = replay;
      for (;;) {
        for (const event of page) this.write(client, event);
        // A client ended for reading too slowly (or gone) stops the replay: no more pages of the log are read for it.
        if (since === null || page.length < REPLAY_PAGE || res.writableEnded || res.destroyed) break;
        page = await this.repo.after(client.cursor, REPLAY_PAGE, kind);
        this.onReplayPage();
      }
      const pending = client.pending ?? [];
      client.pending = null;
      for (const event of pending) this.write(client, event);
    } catch (error) {
      this.clients.delete(client);
      if (res.headersSent) res.destroy();
      throw error;
    }
  }

  close(): void {
    clearInterval(this.pingTimer);
    this.stopFollowing();
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }

  private broadcast(event: LogEvent): void {
    // Framed once for every live client (encoded lazily: a kind no client follows costs nothing).
    let framed: Buffer | undefined;
    const frameOnce = (): Buffer => (framed ??= Buffer.from(frame(event)));
    for (const client of this.clients) {
      if (client.pending !== null) {
        client.pending.push(event);
        if (client.pending.length > MAX_PENDING) client.res.destroy();
      } else {
        this.write(client, event, frameOnce);
      }
    }
  }

  /** Sends `event` to `client` unless already sent or filtered out; `framed` gives its SSE frame. */
  private write(client: Client, event: LogEvent, framed: () => Buffer | string = () => frame(event)): void {
    if (event.id <= client.cursor || client.res.writableEnded || client.res.destroyed) return;
    client.cursor = event.id;
    if (client.kind !== undefined && !eventMatchesKind(event, client.kind)) return;
    if (client.res.writableLength > SLOW_CLIENT_BYTES) {
      // Destroyed, not ended: an ended response waits for a client that does not read to take
      // what is queued, and stays open (and listed) as long as it does not.
      client.res.destroy();
      return;
    }
    client.res.write(framed());
  }

  private ping(): void {
    // Never to a response already ended or destroyed (a write after the end is an error of the response).
    for (const client of this.clients) if (client.pending === null && !client.res.writableEnded && !client.res.destroyed) client.res.write(PING);
  }
}
