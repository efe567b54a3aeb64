import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { problem } from './problem';
import { gzipSync } from 'node:zlib';
import type { Express } from 'express';
import type { Caller } from '../app/authenticate';
import { addRateLimitHeaders, admitStream, authorize, authorizeNow, liveUnavailable, rateLimitHeaders, sendError, type AppDeps } from './app';
import { requestId } from './request-id';
import { streamParams } from './event-params';
import type { EventStream } from './event-stream';
import type { SnapshotStream } from './sse';
import { isDashboardPath, isOpenDashboardPath } from './dashboard';

function isPath(url: string, path: string): boolean {
  return url === path || url.startsWith(`${path}?`);
}

const LIVE_PATH = '/api/v1/live';
const STREAM_PATH = '/api/v1/stream';
const EVENTS_STREAM_PATH = '/api/v1/events/stream';
/** Responses over 1 KiB honour Accept-Encoding: gzip (SPEC 2). */
const GZIP_MIN_BYTES = 1024;

/**
 * The gateway's HTTP server. GET /live — polled every second or two by every client —
 * is answered here from the cached bytes with only what it needs (request id, auth,
 * rate limit, optional gzip); everything else goes to the Express app.
 */
export function createGatewayServer(app: Express, deps: AppDeps, stream: SnapshotStream, events: EventStream): Server {
  let gzipFor: { seq: number; stale: boolean; bytes: Buffer } | null = null;
  const gzipped = (seq: number, stale: boolean, bytes: Buffer): Buffer => {
    if (gzipFor?.seq !== seq || gzipFor.stale !== stale) gzipFor = { seq, stale, bytes: gzipSync(bytes) };
    return gzipFor.bytes;
  };

  const live = (req: IncomingMessage, res: ServerResponse, id: string): void => {
    // A leased key is answered in this turn, with no promise; otherwise after the lookup.
    const caller = authorizeNow(deps, req);
    if (caller === undefined) {
      authorize(deps, req).then((c) => answerLive(req, res, id, c)).catch(fail(res, id));
      return;
    }
    try {
      answerLive(req, res, id, caller);
    } catch (error) {
      fail(res, id)(error);
    }
  };

  const answerLive = (req: IncomingMessage, res: ServerResponse, id: string, caller: Caller): void => {
    const view = deps.live.view();
    if (view === null) throw liveUnavailable();
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      Vary: 'Accept-Encoding',
      // Seconds since the indexer built the snapshot; the body says `stale: true` past the threshold.
      Age: view.ageSeconds,
      'X-Request-Id': id,
    };
    addRateLimitHeaders(headers, caller.decision);
    let body = view.body;
    if (body.length > GZIP_MIN_BYTES && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      body = gzipped(view.held.seq, view.stale, view.body);
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
    res.end(body);
  };

  const subscribe = async (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => {
    // A stream costs one token, at connect.
    const caller = await authorize(deps, req);
    admitStream(deps.streams, caller, req, res);
    stream.attach(res, { 'X-Request-Id': id, ...rateLimitHeaders(caller.decision) });
  };

  const followEvents = async (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    // Parameters first: a bad request costs no token.
    const lastEventId = req.headers['last-event-id'];
    const { since, kind } = streamParams(url.searchParams, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
    const caller = await authorize(deps, req);
    admitStream(deps.streams, caller, req, res);
    await events.attach(res, { 'X-Request-Id': id, ...rateLimitHeaders(caller.decision) }, since, kind);
  };

  const fail = (res: ServerResponse, id: string) => (error: unknown) => {
    res.setHeader('X-Request-Id', id);
    sendError(res, error, deps.logger, id);
  };

  const dispatch = (req: IncomingMessage, res: ServerResponse, id: string): void => {
    const url = req.url ?? '/';
    // The hot path sets its headers in one writeHead call.
    if (req.method === 'GET' && isPath(url, LIVE_PATH)) {
      live(req, res, id);
      return;
    }
    res.setHeader('X-Request-Id', id);
    if (req.method === 'GET' && isPath(url, EVENTS_STREAM_PATH)) {
      followEvents(req, res, id).catch(fail(res, id));
      return;
    }
    if (req.method === 'GET' && isPath(url, STREAM_PATH)) {
      subscribe(req, res, id).catch(fail(res, id));
      return;
    }
    app(req, res);
  };

  const server = createServer((req, res) => {
    const id = requestId(req);
    const url = req.url ?? '/';
    // The dashboard's mirror of the API: Origin and session checked, then served as /api/v1.
    if (isDashboardPath(url) && !isOpenDashboardPath(url)) {
      sessionPrivate(res);
      deps.dashboard.admit(req).then(() => dispatch(req, res, id), fail(res, id));
      return;
    }
    if (isDashboardPath(url)) sessionPrivate(res);
    dispatch(req, res, id);
  });
  server.on('clientError', answerMalformed);
  return server;
}

const PRIVATE = 'private, no-store';

/**
 * A response to a request a session cookie authorizes (or may authorize) belongs to that
 * browser alone: no shared cache may keep it or serve it for another cookie. Whatever
 * Cache-Control a handler sets becomes `private, no-store`, and Vary always names Cookie
 * (headers passed to writeHead go through setHeader once one is set).
 */
function sessionPrivate(res: ServerResponse): void {
  const set = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]): ServerResponse => {
    const lower = name.toLowerCase();
    if (lower === 'cache-control') return set(name, PRIVATE);
    if (lower === 'vary') return set(name, withCookie(value));
    return set(name, value);
  };
  set('Cache-Control', PRIVATE);
  set('Vary', 'Cookie');
}

function withCookie(vary: number | string | readonly string[]): string {
  const fields = (Array.isArray(vary) ? vary.join(',') : String(vary)).split(',').map((f) => f.trim()).filter((f) => f !== '');
  return fields.some((f) => f.toLowerCase() === 'cookie' || f === '*') ? fields.join(', ') : [...fields, 'Cookie'].join(', ');
}

/**
 * Requests Node's HTTP parser refuses (headers too large, a malformed request line or
 * header) get a problem+json answer too, rather than a bare status line.
 */
function answerMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'the request was not received in time']
        : [400, 'invalid_request', 'the request is not valid HTTP'];
  const body = JSON.stringify(problem(status, code, detail));
  socket.end(
    `HTTP/1.1 ${status} ${problem(status, code, detail).title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
