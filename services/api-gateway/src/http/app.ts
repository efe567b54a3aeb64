import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { DumpPage, EventPage, Grid, LiveEv, RoundList, RoundWithNeighbours, Stats } from '@gridlab/contracts';
import { InputError, NotFoundError, UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { RoundRepository } from '@gridlab/rounds-store';
import type { ReadinessReport } from '@gridlab/runtime';
import compression from 'compression';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { EventRepository } from '@gridlab/events-store';
import type { BillingClient } from '../adapters/nats/billing-client';
import type { LabClient } from '../adapters/nats/lab-client';
import type { StrategiesClient } from '../adapters/nats/strategies-client';
import type { LiveCache } from '../adapters/nats/live-feed';
import { RateLimitedWithDecision, type Authenticator, type Caller } from '../app/authenticate';
import type { BucketDecision } from '../domain/token-bucket';
import { computeGrid } from '../domain/grid';
import { DumpPace } from '../domain/dump-pace';
import type { StreamOwner, StreamRegistry } from '../domain/stream-registry';
import type { InFlight } from '../domain/in-flight';
import { computeStats } from '../domain/stats';
import { liveEv } from '../domain/live-ev';
import { clientAddress, type ProxyMatcher } from './client-address';
import { loadOpenApi } from './openapi';
import { problem, sendProblem, toProblem } from './problem';
import { pollParams } from './event-params';
import { intParam } from './query';
import { addLabRoutes } from './lab-routes';
import { dashboardPages, sessionOf, type Dashboard } from './dashboard';

export interface AppDeps {
  readonly authenticator: Authenticator;
  readonly rounds: RoundRepository;
  readonly billing: BillingClient;
  readonly lab: LabClient;
  /** Strategy records, forward stats and the leaderboard (lab-forward). */
  readonly strategies: StrategiesClient;
  readonly events: EventRepository;
  readonly live: LiveCache;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly readiness: () => Promise<ReadinessReport>;
  readonly trustedProxies: ProxyMatcher;
  /** Per-client-address bucket of public endpoints (Redis, or in-process when it is down). */
  readonly limitAddress: (address: string) => Promise<BucketDecision>;
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

interface DumpSettings {
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

/** Retry-After of a concurrency cap: a slot frees when another stream or job ends. */
const CAP_RETRY_AFTER_S = 5;

/** A 429 for a concurrency cap, with `code` naming it and RateLimit-* describing it. */
function capExceeded(code: string, limit: number, detail: string): RateLimitedWithDecision {
  return new RateLimitedWithDecision({ allowed: false, limit, remaining: 0, resetSeconds: CAP_RETRY_AFTER_S, retryAfterSeconds: CAP_RETRY_AFTER_S }, detail, code);
}

/** Who holds a stream open: the key, the address, and the dashboard session, if any (the stream ends with it). */
function streamOwner(caller: Caller, req: IncomingMessage): StreamOwner {
  const session = sessionOf(req);
  return {
    key: caller.keyHash.toString('hex'),
    address: caller.address,
    paidUntilMs: caller.paidUntilMs,
    ...(session === undefined ? {} : { session: { subscriberId: session.subscriberId, epoch: session.epoch, expiresAtMs: session.expiresAtMs } }),
  };
}

/**
 * Registers an authorized stream under the caps (429 too_many_streams per key,
 * too_many_streams_from_address per address); the stream is closed when its key is
 * revoked or expires or its dashboard session ends, and its slot freed when the response closes.
 */
export function admitStream(streams: StreamRegistry, caller: Caller, req: IncomingMessage, res: ServerResponse): void {
  const lease = streams.open(streamOwner(caller, req), () => {
    res.end();
    res.destroy();
  });
  if ('refused' in lease) {
    throw lease.refused.cap === 'key'
      ? capExceeded('too_many_streams', lease.refused.limit, `at most ${lease.refused.limit} concurrent streams per API key`)
      : capExceeded('too_many_streams_from_address', lease.refused.limit, `at most ${lease.refused.limit} concurrent streams per client address`);
  }
  res.on('close', lease.release);
}

const BODY_LIMIT = '64kb';
const NDJSON = 'application/x-ndjson';
/** Responses over 1 KiB honour Accept-Encoding: gzip (SPEC 2). */
const GZIP_THRESHOLD = 1024;
const MAX_ROUND_ID = Number.MAX_SAFE_INTEGER;
/** GET /live/ev's stake when none is given: 0.1 SOL, a typical miner's per square. */
const DEFAULT_EV_STAKE = 100_000_000;
/** A stake or price at most a million SOL (stakes beyond mean nothing on a real board). */
const MAX_LAMPORTS = 1_000_000_000_000_000;

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

/** Authenticates and rate-limits one paid request (a dashboard request as its session's key). */
export async function authorize(deps: AppDeps, req: IncomingMessage): Promise<Caller> {
  const session = sessionOf(req);
  if (session !== undefined) return deps.dashboard.authorize(session, req);
  return deps.authenticator.authenticate(headerValue(req.headers.authorization), addressOf(deps, req));
}

/**
 * `authorize` answered at once when the Bearer key is leased by this replica (the
 * common case of a polling client); undefined when `authorize` must decide.
 */
export function authorizeNow(deps: AppDeps, req: IncomingMessage): Caller | undefined {
  if (sessionOf(req) !== undefined) return undefined;
  return deps.authenticator.authenticateNow(headerValue(req.headers.authorization), addressOf(deps, req));
}

function addressOf(deps: AppDeps, req: IncomingMessage): string {
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

  const openapi = loadOpenApi().json;
  // Public endpoints are limited per client address; applied per route, since a
  // router-level middleware would also run for the paid paths under the same prefix.
  const byAddress = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const address = clientAddress(req.socket.remoteAddress, headerValue(req.headers['x-forwarded-for']), deps.trustedProxies);
    const decision = await deps.limitAddress(address);
    res.set(rateLimitHeaders(decision));
    if (!decision.allowed) throw new RateLimitedWithDecision(decision, 'rate limit of this client address exceeded');
    next();
  };
  app.use(deps.dashboard.routes(byAddress));
  app.get('/api/v1/openapi.json', byAddress, (_req, res) => {
    res.type('application/json').send(openapi);
  });

  // Subscription and key flows: public, limited per address, answered by billing.
  const requestIdOf = (res: Response): string => String(res.getHeader('X-Request-Id') ?? '');
  app.get('/api/v1/pricing', byAddress, async (_req, res) => {
    res.set('Cache-Control', 'no-store').json(await deps.billing.pricing(requestIdOf(res)));
  });
  app.post('/api/v1/subscribe', byAddress, async (req, res) => {
    res.json(await deps.billing.startSubscription(req.body, requestIdOf(res)));
  });
  app.put('/api/v1/subscribe', byAddress, async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await deps.billing.completeSubscription(req.body, requestIdOf(res)));
  });
  app.post('/api/v1/reissue', byAddress, async (req, res) => {
    res.json(await deps.billing.startReissue(req.body, requestIdOf(res)));
  });
  app.put('/api/v1/reissue', byAddress, async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await deps.billing.completeReissue(req.body, requestIdOf(res)));
  });

  const paid = express.Router();
  paid.use(async (req: Request, res: Response, next: NextFunction) => {
    const caller = await authorize(deps, req);
    res.locals['caller'] = caller;
    res.set(rateLimitHeaders(caller.decision));
    next();
  });

  paid.get('/live/ev', (req, res) => {
    // Parameters first, each named when wrong; then the live round, held in memory.
    const stakeLamports = intParam(req.query['stakeLamports'], 'stakeLamports', DEFAULT_EV_STAKE, 1, MAX_LAMPORTS)!;
    const orePriceLamports = intParam(req.query['orePriceLamports'], 'orePriceLamports', undefined, 0, MAX_LAMPORTS);
    const k = intParam(req.query['k'], 'k', 5, 1, 25)!;
    const view = deps.live.view();
    if (view === null) throw liveUnavailable();
    const ev = liveEv(view.held.snapshot, { stakeLamports, k, ...(orePriceLamports === undefined ? {} : { orePriceLamports }) });
    if (ev === null) throw new UnavailableError('the live round\'s game is not known yet (the indexer publishes it with each snapshot)', { retryAfterSeconds: 5 });
    res.set('Cache-Control', 'no-store').json({ ...ev, stale: view.stale } satisfies LiveEv);
  });

  paid.get('/stats', async (_req, res) => {
    res.json(computeStats(await deps.rounds.aggregates()) satisfies Stats);
  });

  paid.get('/rounds', async (req, res) => {
    const limit = intParam(req.query['limit'], 'limit', 100, 1, 10_000)!;
    const rounds = await deps.rounds.latest(limit);
    res.json({ count: rounds.length, rounds } satisfies RoundList);
  });

  paid.get('/rounds/:id', async (req, res) => {
    const raw = req.params['id'] ?? '';
    if (!/^\d{1,16}$/.test(raw) || Number(raw) > MAX_ROUND_ID) {
      throw new InputError('round id must be a non-negative integer', { errors: [{ path: '/path/id', message: 'must be a non-negative integer' }] });
    }
    const found = await deps.rounds.findWithNeighbours(Number(raw));
    if (found === null) throw new NotFoundError('round_not_found', `round ${raw} is not indexed`);
    res.json({ ...found.round, prevId: found.prevId, nextId: found.nextId } satisfies RoundWithNeighbours);
  });

  paid.get('/grid/:n', async (req, res) => {
    const raw = req.params['n'] ?? '';
    if (!/^\d{1,2}$/.test(raw) || Number(raw) > 24) {
      throw new InputError('n must be a square index from 0 to 24 (0 is the top-left square)', {
        errors: [{ path: '/path/n', message: 'must be an integer from 0 to 24' }],
      });
    }
    const limit = intParam(req.query['limit'], 'limit', 200, 1, 10_000)!;
    const square = Number(raw);
    const [aggregates, recent] = await Promise.all([deps.rounds.aggregates(), deps.rounds.recentOutcomes(limit)]);
    const stats = aggregates.squares[square]!;
    res.json(computeGrid(square, stats, aggregates.roundsIndexed - aggregates.voidedRounds, recent) satisfies Grid);
  });

  paid.get('/dump', async (req, res) => {
    const from = intParam(req.query['from'], 'from', undefined, 0, MAX_ROUND_ID);
    const to = intParam(req.query['to'], 'to', undefined, 0, MAX_ROUND_ID);
    const limit = intParam(req.query['limit'], 'limit', 5000, 1, 10_000)!;
    if (from !== undefined && to !== undefined && from > to) {
      throw new InputError('from must not be greater than to', { errors: [{ path: '/query/from', message: 'must be <= to' }] });
    }
    const totals = await deps.rounds.aggregates();
    const range = { from: from ?? totals.firstId ?? 0, to: to ?? totals.lastId ?? 0 };
    if (req.accepts(['application/json', NDJSON]) === NDJSON) {
      admitDump(deps.dumps, res.locals['caller'] as Caller, req, res);
      return streamDump(deps.dumps, range, res);
    }
    const rows = totals.lastId === null ? [] : await deps.rounds.getRounds({ fromId: range.from, toId: range.to, limit: limit + 1 });
    const hasMore = rows.length > limit;
    const rounds = hasMore ? rows.slice(0, limit) : rows;
    const page: DumpPage = { count: rounds.length, from: range.from, to: range.to, hasMore, nextFrom: hasMore ? rounds[rounds.length - 1]!.id + 1 : null, rounds };
    res.json(page);
  });

  // Strategy Lab computations, answered by lab-backtest (results may exceed 1 MiB: chunked over NATS).
  // At most LAB_JOBS_PER_KEY in flight per key (429 too_many_lab_jobs); lab-backtest queues fairly by subscriber.
  paid.post('/lab/backtest', async (req, res) => {
    const caller = res.locals['caller'] as Caller;
    const { json } = await withLabSlot(deps.labJobs, caller, () => deps.lab.backtest(req.body, requestIdOf(res), caller.subscriberId));
    res.set('Cache-Control', 'no-store').type('application/json').send(wrapJson('result', json));
  });
  paid.post('/lab/analytics', async (req, res) => {
    const caller = res.locals['caller'] as Caller;
    const { json, cache } = await withLabSlot(deps.labJobs, caller, () => deps.lab.analytics(req.body, requestIdOf(res), caller.subscriberId));
    if (cache !== undefined) res.set('X-Cache', cache);
    res.set('Cache-Control', 'no-store').type('application/json').send(wrapJson('analytics', json));
  });

  paid.get('/events', async (req, res) => {
    const { since, limit, kind } = pollParams(req.query);
    const events = await deps.events.after(since, limit, kind);
    res.json({ count: events.length, lastId: events.length === 0 ? since : events[events.length - 1]!.id, events } satisfies EventPage);
  });

  addLabRoutes(app, paid, byAddress, deps.strategies);
  app.use('/api/v1', paid);
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

/** Runs a lab request in one of the key's in-flight slots, or refuses it with 429 too_many_lab_jobs. */
async function withLabSlot<T>(jobs: InFlight, caller: Caller, run: () => Promise<T>): Promise<T> {
  const release = jobs.acquire(caller.keyHash.toString('hex'));
  if (release === null) throw capExceeded('too_many_lab_jobs', jobs.limit, `at most ${jobs.limit} Strategy Lab requests in flight per API key`);
  try {
    return await run();
  } finally {
    release();
  }
}

/** Registers an NDJSON dump under its caps (429 too_many_dumps per key or address, 503 when every slot of the replica is busy). */
function admitDump(dumps: DumpSettings, caller: Caller, req: IncomingMessage, res: Response): void {
  const lease = dumps.registry.open(streamOwner(caller, req), () => res.destroy());
  if ('refused' in lease) {
    const { cap, limit } = lease.refused;
    throw capExceeded(cap === 'key' ? 'too_many_dumps' : 'too_many_dumps_from_address', limit, `at most ${limit} concurrent NDJSON dumps per ${cap === 'key' ? 'API key' : 'client address'}`);
  }
  if (dumps.registry.size > dumps.maxConcurrent) {
    lease.release();
    throw new UnavailableError('every NDJSON dump slot of this replica is busy; retry shortly', { code: 'dumps_busy', retryAfterSeconds: 5 });
  }
  res.on('close', lease.release);
}

/**
 * Streams every round of the range as NDJSON straight from a binary COPY over the dump
 * pool, with backpressure from the client's socket back to PostgreSQL: constant memory
 * whatever the range. A client that reads too slowly stalls the COPY and holds a dump slot
 * and a snapshot: one that moved less than the minimum rate over the last window (nothing,
 * or a few KB now and then), or a dump past its maximum duration, is destroyed and its
 * connection discarded.
 */
async function streamDump(dumps: DumpSettings, range: { from: number; to: number }, res: Response): Promise<void> {
  const { stream, release } = await dumps.rounds.exportNdjson(range.from, range.to);
  res.status(200).type(NDJSON).set('Cache-Control', 'no-store');
  const tickMs = Math.max(100, Math.floor(dumps.idleTimeoutMs / 4));
  const pace = new DumpPace({
    windowTicks: Math.max(1, Math.round(dumps.idleTimeoutMs / tickMs)),
    minBytesPerWindow: (dumps.minBytesPerSecond * dumps.idleTimeoutMs) / 1000,
    maxTicks: Math.max(1, Math.ceil(dumps.maxDurationMs / tickMs)),
  });
  // What the socket has taken is read off it at each tick: no extra stream stage on the hot path.
  const watchdog = setInterval(() => {
    if (pace.tick(res.socket?.bytesWritten ?? 0) !== 'continue') res.destroy();
  }, tickMs);
  try {
    await pipeline(stream, res);
  } catch (error) {
    // A client that hangs up (or is dropped) mid-stream is not an error worth a 500 (headers are sent).
    if (!res.destroyed) throw error;
  } finally {
    clearInterval(watchdog);
    release();
  }
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

/** `{"<key>":<json>}` around a JSON value already encoded (a lab result passed through as lab-backtest encoded it). */
function wrapJson(key: string, json: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`{"${key}":`), json, Buffer.from('}')]);
}
