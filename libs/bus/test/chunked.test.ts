import { randomBytes } from 'node:crypto';
import { CACHE_HEADER, CHUNK_HEADER, CHUNKS_HEADER, Type, compileValidator } from '@gridlab/contracts';
import { InputError, TimeoutError, UnavailableError, DecodeError } from '@gridlab/errors';
import { createLogger } from '@gridlab/logger';
import { testNamespace } from '@gridlab/testing';
import { headers } from '@nats-io/transport-node';
import { connectBus, replyChunkBytes, requestChunked, respondChunked, type NatsConnection } from '../src';

const ns = testNamespace();
const subject = `${ns.natsPrefix}.test.chunked`;
const encoder = new TextEncoder();
const validateBlob = compileValidator(Type.Object({ blob: Type.String() }, { additionalProperties: false }), 'blob');
let server: NatsConnection;
let client: NatsConnection;

beforeAll(async () => {
  const logger = createLogger({ service: 'test', silent: true });
  [server, client] = await Promise.all([
    connectBus({ servers: ns.natsUrl, name: 'chunked-server', logger }),
    connectBus({ servers: ns.natsUrl, name: 'chunked-client', logger }),
  ]);
});

afterAll(async () => {
  await Promise.all([server.drain(), client.drain()]);
  await ns.cleanup();
});

/** Serves `subject` with `answer` until the returned function is called. */
function serve(answer: (data: Uint8Array, reply: (bytes: Uint8Array, extra?: Record<string, string>) => void) => void): () => void {
  const sub = server.subscribe(subject, {
    callback: (_e, msg) => answer(msg.data, (bytes, extra = {}) => void respondChunked(server, msg, bytes, { headers: extra })),
  });
  return () => sub.unsubscribe();
}

describe('chunked replies', () => {
  it('delivers a reply several times larger than the 1 MiB max payload intact, with its headers', async () => {
    const blob = randomBytes(3 * 1024 * 1024).toString('base64');
    const stop = serve((_d, reply) => reply(encoder.encode(JSON.stringify({ ok: true, result: { blob } })), { [CACHE_HEADER]: 'miss' }));
    await server.flush();
    try {
      const { result, headers: h } = await requestChunked(client, subject, {}, validateBlob, { timeoutMs: 10_000 });
      expect(result.blob).toBe(blob);
      expect(Number(h?.get(CHUNKS_HEADER))).toBe(Math.ceil((blob.length + 25) / replyChunkBytes(server)));
      expect(Number(h?.get(CHUNKS_HEADER))).toBeGreaterThanOrEqual(4);
      expect(h?.get(CACHE_HEADER)).toBe('miss');
    } finally {
      stop();
    }
  });

  it('relays a business error as the same error', async () => {
    const error = { kind: 'input', code: 'invalid_request', detail: 'bad dsl', retryable: false, errors: [{ path: '/dsl/params', message: 'is required' }] };
    const stop = serve((_d, reply) => reply(encoder.encode(JSON.stringify({ ok: false, error }))));
    await server.flush();
    try {
      const failure = await requestChunked(client, subject, {}, validateBlob, { timeoutMs: 5000 }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(InputError);
      expect(failure).toMatchObject({ code: 'invalid_request', errors: error.errors });
    } finally {
      stop();
    }
  });

  it('answers 503 when nobody serves the subject', async () => {
    await expect(requestChunked(client, `${subject}.nobody`, {}, validateBlob, { timeoutMs: 5000 })).rejects.toBeInstanceOf(UnavailableError);
  });

  it('times out when a chunk never arrives, rather than returning part of the reply', async () => {
    const partial = server.subscribe(`${subject}.partial`, {
      callback: (_e, msg) => {
        const h = headers();
        h.set(CHUNK_HEADER, '0');
        h.set(CHUNKS_HEADER, '2');
        server.publish(msg.reply!, encoder.encode('{"ok":true,'), { headers: h });
      },
    });
    await server.flush();
    try {
      await expect(requestChunked(client, `${subject}.partial`, {}, validateBlob, { timeoutMs: 500 })).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      partial.unsubscribe();
    }
  });

  it('refuses a result that breaks its contract as the service’s failure, not the caller’s', async () => {
    const stop = serve((_d, reply) => reply(encoder.encode(JSON.stringify({ ok: true, result: { blob: 7 } }))));
    await server.flush();
    try {
      // A 500 with no internal text (DecodeError), never the caller's 400.
      await expect(requestChunked(client, subject, {}, validateBlob, { timeoutMs: 5000 })).rejects.toBeInstanceOf(DecodeError);
    } finally {
      stop();
    }
  });
});
