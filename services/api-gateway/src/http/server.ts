import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { API_OPERATIONS } from '@gridlab/contracts';
import { problem } from './problem';
import type { Express } from 'express';
import { sendError, type AppDeps } from './app';
import { requestId } from './request-id';
import { isDashboardPath, isOpenDashboardPath } from './dashboard';
import { RAW_OPERATIONS, rawHandlers, type GatewayStreams, type RawHandlers } from './operations';

interface RawRoute {
  readonly method: string;
  /** The path (and an optional query); its `{name}` segments captured. */
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly handle: RawHandlers[keyof RawHandlers];
}

/** `/api/v1/miners/{address}/stream` as a pattern of the request URL: each `{name}` one segment, then the end or a query. */
function routePattern(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/?#]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}(?:\\?|$)`), names };
}

/** A path segment decoded; as sent when it is not valid percent-encoding (its parameter check refuses it). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The raw operations' method and path, from the table, in its order (GET /live first). */
function rawRoutes(handlers: RawHandlers): readonly RawRoute[] {
  return API_OPERATIONS.flatMap((op) => {
    const id = RAW_OPERATIONS.find((raw) => raw === op.operationId);
    return id === undefined ? [] : [{ method: op.method.toUpperCase(), ...routePattern(op.path), handle: handlers[id] }];
  });
}

/**
 * The gateway's HTTP server. GET /live — polled every second or two by every client —
 * and the SSE streams are answered here (./operations/live.ts); everything else goes to
 * the Express app.
 */
export function createGatewayServer(app: Express, deps: AppDeps, streams: GatewayStreams): Server {
  const routes = rawRoutes(rawHandlers(deps, streams));

  const dispatch = (req: IncomingMessage, res: ServerResponse, id: string): void => {
    const url = req.url ?? '/';
    for (const route of routes) {
      if (req.method !== route.method) continue;
      const match = route.pattern.exec(url);
      if (match === null) continue;
      route.handle(req, res, id, Object.fromEntries(route.names.map((name, i) => [name, decodeSegment(match[i + 1]!)])));
      return;
    }
    res.setHeader('X-Request-Id', id);
    app(req, res);
  };

  const fail = (res: ServerResponse, id: string) => (error: unknown) => {
    res.setHeader('X-Request-Id', id);
    sendError(res, error, deps.logger, id);
  };

  const server = createServer((req, res) => {
    const id = requestId(req);
    const url = req.url ?? '/';
    // The dashboard's mirror of the API: Origin and session checked, then served as /api/v1.
    if (isDashboardPath(url) && !isOpenDashboardPath(url)) {
      sessionPrivate(res);
      try {
        deps.dashboard.admit(req);
      } catch (error) {
        fail(res, id)(error);
        return;
      }
      dispatch(req, res, id);
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
