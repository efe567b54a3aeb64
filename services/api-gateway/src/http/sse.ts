import type { ServerResponse } from 'node:http';
import type { LiveCache } from '../adapters/nats/live-feed';

/** A comment line every 15 s keeps proxies from closing an idle stream (SPEC 4). */
const PING_MS = 15_000;
/**
 * A client whose socket holds more than this unsent is slow: it skips intermediate
 * snapshots and gets the latest once its socket drains (coalescing, never a queue).
 */
const SLOW_CLIENT_BYTES = 16 * 1024;
const PING = Buffer.from(': ping\n\n');

interface Client {
  readonly res: ServerResponse;
  /** Sequence number of the snapshot last written, or of none yet. */
  sent: number;
  waitingForDrain: boolean;
}

/**
 * The live snapshot stream: every client gets the current state on connect, then each
 * new snapshot; one encoded event is shared by all clients, and a slow client only ever
 * gets the newest state.
 */
export class SnapshotStream {
  private readonly clients = new Set<Client>();
  private event: { seq: number; bytes: Buffer } | null = null;
  private readonly pingTimer: NodeJS.Timeout;
  private readonly stopFollowing: () => void;

  constructor(private readonly live: LiveCache) {
    this.stopFollowing = live.onChange(() => this.broadcast());
    this.pingTimer = setInterval(() => this.ping(), PING_MS);
    this.pingTimer.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Takes over an authorized request's response for the life of the connection. */
  attach(res: ServerResponse, headers: Record<string, string>): void {
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.socket?.setNoDelay(true);
    const client: Client = { res, sent: 0, waitingForDrain: false };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
    res.on('drain', () => {
      client.waitingForDrain = false;
      this.send(client);
    });
    this.send(client);
  }

  close(): void {
    clearInterval(this.pingTimer);
    this.stopFollowing();
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }

  private current(): { seq: number; bytes: Buffer } | null {
    const latest = this.live.latest;
    if (latest === null) return null;
    if (this.event?.seq !== latest.seq) {
      const id = `${latest.snapshot.roundId}-${latest.seq}`;
      this.event = { seq: latest.seq, bytes: Buffer.concat([Buffer.from(`event: snapshot\nid: ${id}\ndata: `), latest.bytes, Buffer.from('\n\n')]) };
    }
    return this.event;
  }

  private broadcast(): void {
    for (const client of this.clients) this.send(client);
  }

  private send(client: Client): void {
    const event = this.current();
    if (event === null || client.sent === event.seq || client.waitingForDrain) return;
    client.sent = event.seq;
    const flushed = client.res.write(event.bytes);
    if (!flushed || client.res.writableLength > SLOW_CLIENT_BYTES) client.waitingForDrain = true;
  }

  private ping(): void {
    for (const client of this.clients) if (!client.waitingForDrain) client.res.write(PING);
  }
}
