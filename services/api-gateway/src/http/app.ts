import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotFoundError, UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { RoundRepository } from '@gridlab/rounds-store';
import type { ReadinessReport } from '@gridlab/runtime';
import compression from 'compression';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { EventRepository } from '@gridlab/events-store';
import type { MinerLedgerReads } from '@gridlab/miners-store';
import type { MinerClaimsReader } from '../adapters/chain/miner-claims';
import type { AlertsClient } from '../adapters/nats/alerts-client';
import type { BillingClient } from '../adapters/nats/billing-client';
import type { LabClient } from '../adapters/nats/lab-client';
import type { StrategiesClient } from '../adapters/nats/strategies-client';
import type { LiveCache } from '../adapters/nats/live-feed';
import { RateLimitedWithDecision, type Access, type Caller } from '../app/access';
import type { BucketDecision } from '../domain/token-bucket';
import type { StreamRegistry } from '../domain/stream-registry';
import type { InFlight } from '../domain/in-flight';
import { clientAddress, type ProxyMatcher } from './client-address';
import { problem, sendProblem, toProblem } from './problem';
import { bindOperations } from './operations';
import { dashboardPages, sessionOf, type Dashboard } from './dashboard';

export interface AppDeps {
  /** The request path: who may call, at what rate (app/access.ts). */
  readonly access: Access;
  readonly rounds: RoundRepository;
  readonly billing: BillingClient;
  readonly lab: LabClient;
  /** Strategy records, forward stats and the leaderboard (lab-forward). */
  readonly strategies: StrategiesClient;
  /** Alert rules, their secrets and delivery log (the notifier). */
  readonly alerts: AlertsClient;
  readonly events: EventRepository;
  readonly live: LiveCache;
  /** Every wallet's ledger (libs/miners-store). */
  readonly miners: MinerLedgerReads;
  /** What a wallet's Miner account holds to claim (SOLANA_RPC_URL; null without it). */
  readonly minerClaims: MinerClaimsReader;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly readiness: () => Promise<ReadinessReport>;
  readonly trustedProxies: ProxyMatcher;
  /** Open SSE streams, capped per key and per address, closed on revocation and expiry. */
  readonly streams: StreamRegistry;
  /** Strategy Lab jobs in flight per key. */
  readonly labJobs: InFlight;
  /** NDJSON dumps: their own small pool, caps, and the idle timeout of a client that stops reading. */
  readonly dumps: DumpSettings;
  /** Browser sessions and the `/api/live*` mirror of the API. */
  readonly dashboard: Dashboard;
  /** The built dashboard pages served at `/`. */
  readonly webRoot: string;
  /** The RPC the dashboard's wallet payments use (its origin joins the page's connect-src). */
  readonly publicRpcUrl: string;
}

export interface DumpSettings {
  /** Reads over the dump pool only, so dumps can never hold the connections key lookups and /stats need. */
  readonly rounds: RoundRepository;
  /** Dumps per key and per address. */
  readonly registry: StreamRegistry;
  /** Concurrent dumps of this replica (the dump pool's size). */
  readonly maxConcurrent: number;
  /** The window over which a dump must move `minBytesPerSecond` (a client that read nothing in it is dropped too). */
  readonly idleTimeoutMs: number;
  /** The slowest a dump may be read, averaged over the window. */
  readonly minBytesPerSecond: number;
  /** A dump still running after this long is ended. */
  readonly maxDurationMs: number;
}

const BODY_LIMIT = '64kb';
/** Responses over 1 KiB honour Accept-Encoding: gzip (SPEC 2). */
const GZIP_THRESHOLD = 1024;

/** RateLimit-* headers of a bucket decision (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(decision: BucketDecision): Record<string, string> {
  const headers: Record<string, string> = {};
  addRateLimitHeaders(headers, decision);
  return headers;
}

/** `rateLimitHeaders` written into `headers` (the hot path builds one object, not two). */
export function addRateLimitHeaders(headers: Record<string, string | number>, decision: BucketDecision): void {
  headers['RateLimit-Limit'] = String(decision.limit);
  headers['RateLimit-Remaining'] = String(decision.remaining);
  headers['RateLimit-Reset'] = String(decision.resetSeconds);
}

/** Lets one paid request through and takes `cost` tokens from its key's bucket (a dashboard request: its session's key). */
export function authorize(deps: AppDeps, req: IncomingMessage, cost = 1): Promise<Caller> {
  const session = sessionOf(req);
  return deps.access.admit(session === undefined ? { authorization: headerValue(req.headers.authorization) } : { session }, addressOf(deps, req), cost);
}

/**
 * `authorize` answered at once when the Bearer key is leased by this replica (the
 * common case of a polling client); undefined when `authorize` must decide.
 */
export function authorizeNow(deps: AppDeps, req: IncomingMessage, cost = 1): Caller | undefined {
  if (sessionOf(req) !== undefined) return undefined;
  return deps.access.admitNow(headerValue(req.headers.authorization), addressOf(deps, req), cost);
}

/** The client address of a request (IPv6: its /64), past the trusted proxies. */
export function addressOf(deps: AppDeps, req: IncomingMessage): string {
  return clientAddress(req.socket.remoteAddress, headerValue(req.headers['x-forwarded-for']), deps.trustedProxies);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** Sends an error as problem+json, with RateLimit-* headers when a bucket was involved. */
export function sendError(res: ServerResponse, error: unknown, logger: Logger, requestId: string): void {
  const { problem: p, headers } = toProblem(error);
  if (p.status >= 500) logger.error('request failed', { requestId, err: error });
  const extra = error instanceof RateLimitedWithDecision ? rateLimitHeaders(error.decision) : {};
  sendProblem(res, p, { ...headers, ...extra });
}

/**
 * The Express application for everything but the hot paths (GET /live and the SSE
 * stream are served by the raw server in server.ts). One error middleware turns every
 * failure into problem+json.
 */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(accessLog(deps.logger));
  app.use(compression({ threshold: GZIP_THRESHOLD }));
  app.use(express.json({ limit: BODY_LIMIT }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // The public port says whether each dependency is up, never why not (error text stays
  // on the ops port, with /metrics).
  app.get('/readyz', async (_req, res) => {
    const report = await deps.readiness();
    const checks = Object.fromEntries(Object.entries(report.checks).map(([name, check]) => [name, { ok: check.ok }]));
    res.status(report.ready ? 200 : 503).json({ ready: report.ready, status: report.status, checks });
  });

  // Every operation of the table (libs/contracts/src/api), bound to its handler by operationId.
  bindOperations(app, deps);
  // An /api/v1 path no operation matches still needs a key (and takes a token) before its 404.
  app.use('/api/v1', async (req: Request, res: Response, next: NextFunction) => {
    res.set(rateLimitHeaders((await authorize(deps, req)).decision));
    next();
  });
  app.use(dashboardPages(deps.webRoot, deps.publicRpcUrl));

  app.use((_req, _res, next) => next(new NotFoundError('not_found', 'no such endpoint')));
  // Express recognises error middleware by its four parameters.
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const bodyError = bodyParserProblem(error);
    if (bodyError !== null) return sendProblem(res, bodyError);
    sendError(res, error, deps.logger, String(res.getHeader('X-Request-Id') ?? ''));
  });
  return app;
}

/** One JSON line per request: method, path, status, duration, request id (never headers). */
function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    // Taken now: inside a mounted router `req.path` is relative to the mount point.
    const path = req.path;
    res.on('finish', () => {
      logger.info('request', {
        requestId: res.getHeader('X-Request-Id'),
        method: req.method,
        path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
}

/** express.json() failures: 413 for a body over the limit, 400 for malformed JSON. */
function bodyParserProblem(error: unknown): ReturnType<typeof problem> | null {
  const type = (error as { type?: string } | null)?.type;
  if (type === 'entity.too.large') return problem(413, 'payload_too_large', `request bodies are limited to ${BODY_LIMIT}`);
  if (type === 'entity.parse.failed') return problem(400, 'invalid_request', 'the request body is not valid JSON');
  if (type !== undefined && type.startsWith('encoding.') || type === 'charset.unsupported') {
    return problem(400, 'invalid_request', 'the request body encoding is not supported');
  }
  return null;
}

export function liveUnavailable(): UnavailableError {
  return new UnavailableError('no live snapshot has been received yet');
}
