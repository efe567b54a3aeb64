import type { PoolClient } from '@gridlab/db';

/** Backend message types (PostgreSQL protocol 3). */
const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const COPY_OUT_RESPONSE = 0x48; // 'H'
const PARAMETER_STATUS = 0x53; // 'S'
const NOTICE = 0x4e; // 'N'
const NOTIFICATION = 0x41; // 'A'
/** Type byte and length. */
const MESSAGE_HEADER_BYTES = 5;

/** Receives each CopyData payload as a range of the socket's own chunk (`view` over the whole chunk): read it before returning. */
export type CopyDataSink = (chunk: Buffer, start: number, end: number, view: DataView) => void;

/** What node-postgres hands a submitted query: its connection, whose socket carries the backend's messages. */
interface PgConnection {
  readonly stream: NodeJS.EventEmitter;
  query(text: string): void;
}

/**
 * A `COPY … TO STDOUT` run on a pg client that reads the backend's messages off the
 * socket itself while the COPY lasts (as pg-copy-streams does), handing each CopyData
 * payload to the sink as a range of the chunk the socket delivered: no per-row buffer,
 * no concatenation, no stream. At CopyDone it gives the socket back to pg with what
 * follows (CommandComplete, ReadyForQuery); any other message (an ErrorResponse) goes to
 * pg unread, which fails the query through handleError.
 */
export class CopyOutQuery {
  /** pg wraps this to disarm its query_timeout; pg-copy-streams never calls it, we do. */
  callback: ((error: Error | null) => void) | undefined;
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (error: Error) => void;
  private connection: PgConnection | undefined;
  private pgData: ((chunk: Buffer) => void) | undefined;
  private attached = false;
  private failed = false;
  /** The current message's type and the payload bytes still to come (-1: between messages). */
  private code = 0;
  private remaining = -1;
  /** A message header cut by the end of a chunk. */
  private readonly header = Buffer.alloc(MESSAGE_HEADER_BYTES);
  private headerBytes = 0;

  constructor(
    private readonly text: string,
    private readonly sink: CopyDataSink,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** pg calls this when the query's turn comes; an error returned fails the query. */
  submit(connection: PgConnection): Error | undefined {
    this.connection = connection;
    const listeners = connection.stream.listeners('data');
    if (listeners.length !== 1) return new Error(`expected pg's one socket listener, found ${listeners.length}`);
    this.pgData = listeners[0] as (chunk: Buffer) => void;
    connection.stream.removeListener('data', this.pgData);
    connection.stream.on('data', this.onData);
    this.attached = true;
    connection.query(this.text);
    return undefined;
  }

  handleError(error: Error): void {
    this.failed = true;
    this.callback?.(error);
    this.reject(error);
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    if (this.failed) return;
    this.callback?.(null);
    this.resolve();
  }

  private readonly onData = (chunk: Buffer): void => {
    // Failed (a timeout): the caller discards the connection; nothing more is read.
    if (this.failed) return;
    try {
      this.read(chunk);
    } catch (error) {
      // A sink that throws (a bad tuple) ends the read mid-message: the socket stays ours
      // (pg could not parse from there) and the caller discards the connection.
      this.handleError(error instanceof Error ? error : new Error(String(error)));
    }
  };

  private read(chunk: Buffer): void {
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const end = chunk.length;
    let o = 0;
    while (o < end && this.attached) {
      if (this.remaining < 0) {
        const start = o;
        if (this.headerBytes === 0 && end - o >= MESSAGE_HEADER_BYTES) {
          this.code = chunk[o]!;
          this.remaining = view.getInt32(o + 1) - 4;
          o += MESSAGE_HEADER_BYTES;
        } else {
          const take = Math.min(MESSAGE_HEADER_BYTES - this.headerBytes, end - o);
          chunk.copy(this.header, this.headerBytes, o, o + take);
          this.headerBytes += take;
          o += take;
          if (this.headerBytes < MESSAGE_HEADER_BYTES) return;
          this.code = this.header[0]!;
          this.remaining = this.header.readInt32BE(1) - 4;
        }
        const code = this.code;
        if (code !== COPY_DATA && code !== COPY_OUT_RESPONSE && code !== COPY_DONE && code !== PARAMETER_STATUS && code !== NOTICE && code !== NOTIFICATION) {
          // Not ours (an ErrorResponse): pg reads it from its first byte.
          const split = this.headerBytes > 0 ? Buffer.concat([this.header.subarray(0, this.headerBytes - (o - start)), chunk.subarray(start)]) : chunk.subarray(start);
          this.detach(split);
          return;
        }
        this.headerBytes = 0;
      }
      const n = Math.min(this.remaining, end - o);
      if (this.code === COPY_DATA && n > 0) this.sink(chunk, o, o + n, view);
      o += n;
      this.remaining -= n;
      if (this.remaining === 0) {
        this.remaining = -1;
        if (this.code === COPY_DONE) {
          this.detach(chunk.subarray(o));
          return;
        }
      }
    }
  }

  /** Gives the socket back to pg, with the bytes it has not been given yet. */
  private detach(rest: Buffer): void {
    if (!this.attached) return;
    this.attached = false;
    const stream = this.connection!.stream;
    stream.removeListener('data', this.onData);
    stream.on('data', this.pgData!);
    if (rest.length > 0) this.pgData!(rest);
  }
}

/**
 * Runs `sql` (a `COPY … TO STDOUT`) on `client`, handing every CopyData payload to
 * `sink` as it arrives; resolves once the backend is ready for the next query. On a
 * failure the connection may be mid-COPY: release it with `release(true)`.
 */
export function copyOut(client: PoolClient, sql: string, sink: CopyDataSink, options: { readonly timeoutMs?: number } = {}): Promise<void> {
  const query = new CopyOutQuery(sql, sink);
  const submittable = options.timeoutMs === undefined ? query : Object.assign(query, { query_timeout: options.timeoutMs });
  void (client.query as unknown as (q: object) => unknown)(submittable);
  return query.done;
}
