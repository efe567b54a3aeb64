import { CHUNK_HEADER, CHUNKS_HEADER, CORRELATION_HEADER, commandReplyValidator, type Validator } from '@gridlab/contracts';
import { TimeoutError, UnavailableError } from '@gridlab/errors';
import { createInbox, headers, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefixOf } from './connect';
import { checkedReply, type RequestOptions } from './commands';

/** Every command reply's envelope, checked before its result is. */
const replyEnvelope = commandReplyValidator();

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** NATS' default max payload; replies never rely on a server configured above it. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** Room kept in every chunk for its headers (index, count, cache flag): the server counts them in max_payload. */
const HEADER_RESERVE = 4096;

/** The largest chunk this connection may publish: min(server max_payload, 1 MiB) less the header reserve. */
export function replyChunkBytes(nc: NatsConnection): number {
  return Math.min(nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD, DEFAULT_MAX_PAYLOAD) - HEADER_RESERVE;
}

export interface ChunkedReplyOptions {
  /** Chunk size in bytes (default replyChunkBytes(nc)). */
  readonly chunkBytes?: number;
  /** Extra headers, set on every chunk. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Answers a request with `bytes` (a CommandReply's JSON), split into chunks that each
 * fit NATS' max payload, published in order to the request's inbox. Every chunk carries
 * its index and the chunk count; a reply that fits is one chunk. Core NATS keeps the
 * order of one publisher's messages to one subscriber; the requester still checks the
 * indexes, so a lost chunk is a failed request, never a corrupt result. Returns the
 * number of chunks sent (0 when the request expects no reply).
 */
export function respondChunked(nc: NatsConnection, request: Msg, bytes: Uint8Array, options: ChunkedReplyOptions = {}): number {
  if (!request.reply) return 0;
  const size = options.chunkBytes ?? replyChunkBytes(nc);
  if (!(Number.isInteger(size) && size > 0)) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const count = Math.max(1, Math.ceil(bytes.length / size));
  for (let i = 0; i < count; i++) {
    const h = headers();
    h.set(CHUNK_HEADER, String(i));
    h.set(CHUNKS_HEADER, String(count));
    for (const [name, value] of Object.entries(options.headers ?? {})) h.set(name, value);
    nc.publish(request.reply, bytes.subarray(i * size, (i + 1) * size), { headers: h });
  }
  return count;
}

/** A command's validated result and the headers of its reply's first chunk. */
export interface ChunkedResult<T> {
  readonly result: T;
  readonly headers: MsgHdrs | undefined;
}

/**
 * Sends a command whose reply may come in chunks (see respondChunked) and returns its
 * validated result. A reply without chunk headers is taken as one whole message. No
 * responder → UnavailableError (503); the whole reply not in within `timeoutMs` →
 * TimeoutError (504); a business error → that error; a malformed or inconsistent
 * reply → UnavailableError.
 */
export async function requestChunked<T>(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  result: Validator<T>,
  options: RequestOptions,
): Promise<ChunkedResult<T>> {
  const reply = await collectChunked(nc, subject, payload, options);
  return { result: decodeReply(reply.bytes, result, subject), headers: reply.headers };
}

/** A command's result as the JSON bytes its responder encoded, and the headers of the reply's first chunk. */
export interface RawResult {
  readonly json: Uint8Array;
  readonly headers: MsgHdrs | undefined;
}

const OK_PREFIX = encoder.encode('{"ok":true,"result":');

/**
 * As requestChunked, for results validated by their responder before sending (lab-backtest
 * checks each result against its contract on the worker that encodes it; tests check both
 * ends): the result comes back as the responder's JSON bytes, neither parsed, validated
 * nor encoded again here, for the caller to pass on. A failure reply is decoded and
 * thrown as requestChunked does.
 */
export async function requestChunkedRaw(nc: NatsConnection, subject: string, payload: unknown, options: RequestOptions): Promise<RawResult> {
  const { bytes, headers: first } = await collectChunked(nc, subject, payload, options);
  const ok = bytes.length > OK_PREFIX.length && bytes[bytes.length - 1] === 0x7d && OK_PREFIX.every((b, i) => bytes[i] === b);
  if (ok) return { json: bytes.subarray(OK_PREFIX.length, bytes.length - 1), headers: first };
  // Another encoding of the envelope, or a failure: decode it.
  const result = decodeReply(bytes, (value) => value, subject);
  return { json: encoder.encode(JSON.stringify(result)), headers: first };
}

/** Sends the request and reassembles its reply's chunks (see requestChunked for the failures). */
function collectChunked(nc: NatsConnection, subject: string, payload: unknown, options: RequestOptions): Promise<{ bytes: Uint8Array; headers: MsgHdrs | undefined }> {
  return new Promise((resolve, reject) => {
    const parts: (Uint8Array | undefined)[] = [];
    let expected = 0;
    let received = 0;
    let first: MsgHdrs | undefined;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: () => void): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sub.unsubscribe();
      outcome();
    };
    const fail = (error: Error): void => finish(() => reject(error));

    const sub = nc.subscribe(createInbox(inboxPrefixOf(nc)), {
      callback: (error, msg) => {
        if (error !== null) return fail(new UnavailableError('the message bus is unavailable; retry shortly', { cause: error }));
        if (msg.data.length === 0 && msg.headers?.code === 503) {
          return fail(new UnavailableError('the service that answers this request is not running; retry shortly'));
        }
        const count = Number(msg.headers?.get(CHUNKS_HEADER) || '1');
        const index = Number(msg.headers?.get(CHUNK_HEADER) || '0');
        if (!(Number.isInteger(count) && count >= 1 && Number.isInteger(index) && index >= 0 && index < count) || (expected !== 0 && count !== expected)) {
          return fail(new UnavailableError('the service sent a malformed reply; retry shortly'));
        }
        if (expected === 0) expected = count;
        if (parts[index] !== undefined) return;
        // Copy: the message's bytes are a view into the connection's read buffer.
        parts[index] = msg.data.slice();
        if (index === 0) first = msg.headers;
        if (++received < expected) return;
        finish(() => resolve({ bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts as Uint8Array[]), headers: first }));
      },
    });
    timer = setTimeout(() => fail(new TimeoutError(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    const h = headers();
    if (options.correlationId !== undefined) h.set(CORRELATION_HEADER, options.correlationId);
    for (const [name, value] of Object.entries(options.headers ?? {})) h.set(name, value);
    try {
      nc.publish(subject, encoder.encode(JSON.stringify(payload)), { reply: sub.getSubject(), headers: h });
    } catch (error) {
      fail(new UnavailableError('the message bus is unavailable; retry shortly', { cause: error }));
    }
  });
}

function decodeReply<T>(bytes: Uint8Array, result: Validator<T>, subject: string): T {
  return checkedReply(() => replyEnvelope(JSON.parse(decoder.decode(bytes)) as unknown), result, subject);
}
