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

/** One HTTP/1.1 chunk holding `payload`: every client gets the same bytes. */
/**
 * The head of a Server-Sent Events answer: never cached, never buffered by a proxy
 * (`X-Accel-Buffering`), each frame sent as written (no Nagle delay).
 */
export function startEventStream(res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(200, {
    ...headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.socket?.setNoDelay(true);
}

function chunk(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')]);
}
const PING_CHUNK = chunk(PING);

/**
 * Writes an SSE frame to a client. A chunked HTTP/1.1 response is fed pre-framed chunks
 * straight to its socket: with 10,000 clients a snapshot is framed once, not 10,000
 * times, and each client costs one socket write. Anything else goes through `res`.
 */
function writer(res: ServerResponse): { write(frame: Buffer, framed: Buffer): boolean; backlog(): number; onDrain(fn: () => void): void } {
  const socket = res.socket;
  if (socket !== null && res.chunkedEncoding && res.headersSent) {
    return {
      write: (_frame, framed) => socket.write(framed),
      backlog: () => socket.writableLength,
      onDrain: (fn) => socket.on('drain', fn),
    };
  }
  return {
    write: (frame) => res.write(frame),
    backlog: () => res.writableLength,
    onDrain: (fn) => res.on('drain', fn),
  };
}

interface Client {
  readonly res: ServerResponse;
  readonly out: ReturnType<typeof writer>;
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
  private event: { seq: number; stale: boolean; bytes: Buffer; framed: Buffer } | null = null;
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
    startEventStream(res, headers);
    res.flushHeaders();
    const client: Client = { res, out: writer(res), sent: 0, waitingForDrain: false };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
    client.out.onDrain(() => {
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

  private current(): { seq: number; bytes: Buffer; framed: Buffer } | null {
    const view = this.live.view();
    if (view === null) return null;
    const latest = view.held;
    if (this.event?.seq !== latest.seq || this.event.stale !== view.stale) {
      const id = `${latest.snapshot.roundId}-${latest.seq}`;
      const bytes = Buffer.concat([Buffer.from(`event: snapshot\nid: ${id}\ndata: `), view.body, Buffer.from('\n\n')]);
      this.event = { seq: latest.seq, stale: view.stale, bytes, framed: chunk(bytes) };
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
    const flushed = client.out.write(event.bytes, event.framed);
    if (!flushed || client.out.backlog() > SLOW_CLIENT_BYTES) client.waitingForDrain = true;
  }

  private ping(): void {
    for (const client of this.clients) if (!client.waitingForDrain) client.out.write(PING, PING_CHUNK);
  }
}
