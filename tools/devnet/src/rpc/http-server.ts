import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError, TOO_MANY_REQUESTS, type RpcError as RpcErrorType } from './rpc-error';
import type { RpcMethod } from './methods';
import type { RpcBudgets } from './rate-limits';

const MAX_BODY_BYTES = 2 * 1024 * 1024;

type JsonRpcRequest = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

/** Methods of the devnet itself (test hooks) are never refused. */
const UNLIMITED_PREFIX = 'devnet_';

type Handled = { readonly body: unknown; readonly retryAfterS: number | null };

/**
 * Checks a request and takes its budget now, as a provider counts a batch's items on
 * arrival; returns its answer when that is all (an error, a refusal), else how to run it.
 */
function admit(methods: Record<string, RpcMethod>, budgets: RpcBudgets, request: JsonRpcRequest): Handled | (() => Promise<Handled>) {
  const id = request.id ?? null;
  try {
    if (typeof request.method !== 'string') throw new RpcError(INVALID_REQUEST, 'Invalid request');
    const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    if (method === undefined) throw new RpcError(METHOD_NOT_FOUND, 'Method not found');
    if (!request.method.startsWith(UNLIMITED_PREFIX)) {
      const decision = budgets.take(request.method);
      if (!decision.ok) {
        return { body: { jsonrpc: '2.0', id, error: { code: TOO_MANY_REQUESTS, message: 'Too many requests for a specific RPC call' } }, retryAfterS: decision.retryAfterS };
      }
    }
    const params = request.params === undefined ? [] : request.params;
    if (!Array.isArray(params)) throw new RpcError(INVALID_REQUEST, 'params must be an array');
    return async () => {
      try {
        return { body: { jsonrpc: '2.0', id, result: await method(params) }, retryAfterS: null };
      } catch (error) {
        return failed(id, error);
      }
    };
  } catch (error) {
    return failed(id, error);
  }
}

function failed(id: JsonRpcRequest['id'], error: unknown): Handled {
  const rpc: RpcErrorType = error instanceof RpcError ? error : new RpcError(-32603, error instanceof Error ? error.message : 'Internal error');
  return { body: { jsonrpc: '2.0', id, error: { code: rpc.code, message: rpc.message, ...(rpc.data === undefined ? {} : { data: rpc.data }) } }, retryAfterS: null };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
/** Batch items served between turns of the event loop. */
const SERVE_SLICE = 16;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `JSON.stringify(value)` as UTF-8 bytes. A batch's answers are written one at a time: a
 * batch of transactions is a few hundred kilobytes, and V8 takes several times longer
 * to flatten and copy one string that long than a hundred short ones. A slice at a time,
 * as the batch's items are served.
 */
async function jsonBytes(value: unknown): Promise<Buffer> {
  if (!Array.isArray(value)) return utf8(JSON.stringify(value));
  const parts: Buffer[] = [OPEN];
  for (let i = 0; i < value.length; i++) {
    if (i > 0) parts.push(COMMA);
    if (i > 0 && i % SERVE_SLICE === 0) await nextTurn();
    // As in an array JSON.stringify writes, what has no JSON text is null.
    parts.push(utf8(JSON.stringify(value[i]) ?? 'null'));
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/**
 * UTF-8 bytes of `text`. Text all ASCII (the chain's JSON is, but for user text) is its
 * Latin-1 bytes, a plain copy; taken first, as it also flattens the string, after which
 * its UTF-8 length is quick to measure.
 */
function utf8(text: string): Buffer {
  const latin1 = Buffer.from(text, 'latin1');
  return Buffer.byteLength(text) === text.length ? latin1 : Buffer.from(text);
}

/**
 * Cross-origin requests are allowed, as public Solana RPC endpoints allow them: a web page
 * (the dashboard's wallet payment) builds and sends transactions through it.
 */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': 'content-type, solana-client',
  'access-control-max-age': '86400',
};

/**
 * JSON-RPC 2.0 over HTTP POST, single or batch requests. A single request over its
 * method's budget answers HTTP 429 with Retry-After; in a batch, the items over budget
 * answer JSON-RPC error -32029 and the others are served (HTTP 200, with Retry-After).
 */
export async function startHttpRpc(host: string, port: number, methods: Record<string, RpcMethod>, budgets: RpcBudgets): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown, retryAfterS: number | null = null): void => {
      void jsonBytes(body).then((bytes) => {
        const headers = { ...CORS, 'content-type': 'application/json', 'content-length': bytes.length };
        res.writeHead(status, retryAfterS === null ? headers : { ...headers, 'retry-after': String(retryAfterS) });
        res.end(bytes);
      });
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return;
    }
    if (req.method === 'GET' && req.url === '/health') return send(200, 'ok');
    if (req.method !== 'POST') return send(405, { error: 'use POST' });
    readBody(req).then(
      async (body) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body.toString('utf8'));
        } catch {
          return send(200, { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error' } });
        }
        if (Array.isArray(parsed)) {
          // A slice at a time, as a node serving many clients interleaves them: in tests and
          // benches the devnet shares the reader's process, which a whole batch would hold up.
          const admitted = parsed.map((r) => admit(methods, budgets, (r ?? {}) as JsonRpcRequest));
          const handled: Handled[] = [];
          for (const [i, a] of admitted.entries()) {
            if (i > 0 && i % SERVE_SLICE === 0) await nextTurn();
            handled.push(typeof a === 'function' ? await a() : a);
          }
          const waits = handled.map((h) => h.retryAfterS ?? 0);
          const wait = Math.max(0, ...waits);
          return send(200, handled.map((h) => h.body), wait > 0 ? wait : null);
        }
        const single = admit(methods, budgets, parsed ?? {});
        const one = typeof single === 'function' ? await single() : single;
        return send(one.retryAfterS === null ? 200 : 429, one.body, one.retryAfterS);
      },
      () => send(413, { error: 'body too large' }),
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
