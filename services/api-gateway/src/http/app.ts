import type { IncomingMessage, ServerResponse } from 'node:http';
import { InputError, NotFoundError, UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { RoundRepository } from '@gridlab/rounds-store';
import type { ReadinessReport } from '@gridlab/runtime';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { LiveCache } from '../adapters/nats/live-feed';
import { RateLimitedWithDecision, type Authenticator, type Caller } from '../app/authenticate';
import type { BucketDecision } from '../domain/token-bucket';
import { computeStats } from '../domain/stats';
import { clientAddress } from './client-address';
import { problem, sendProblem, toProblem } from './problem';
import { intParam } from './query';

export interface AppDeps {
  readonly authenticator: Authenticator;
  readonly rounds: RoundRepository;
  readonly live: LiveCache;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly readiness: () => Promise<ReadinessReport>;
  readonly trustedProxies: ReadonlySet<string>;
}

const BODY_LIMIT = '64kb';
const MAX_ROUND_ID = Number.MAX_SAFE_INTEGER;

/** RateLimit-* headers of a bucket decision (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(decision: BucketDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}

/** Authenticates and rate-limits one paid request. */
export async function authorize(deps: AppDeps, req: IncomingMessage): Promise<Caller> {
  const address = clientAddress(req.socket.remoteAddress, headerValue(req.headers['x-forwarded-for']), deps.trustedProxies);
  return deps.authenticator.authenticate(headerValue(req.headers.authorization), address);
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
  app.use(express.json({ limit: BODY_LIMIT }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const report = await deps.readiness();
    res.status(report.ready ? 200 : 503).json(report);
  });
  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.contentType).send(await deps.metrics.metrics());
  });

  const paid = express.Router();
  paid.use(async (req: Request, res: Response, next: NextFunction) => {
    const caller = await authorize(deps, req);
    res.set(rateLimitHeaders(caller.decision));
    next();
  });

  paid.get('/stats', async (_req, res) => {
    res.json(computeStats(await deps.rounds.aggregates()));
  });

  paid.get('/rounds', async (req, res) => {
    const limit = intParam(req.query['limit'], 'limit', 100, 1, 10_000)!;
    const rounds = await deps.rounds.latest(limit);
    res.json({ count: rounds.length, rounds });
  });

  paid.get('/rounds/:id', async (req, res) => {
    const raw = req.params['id'] ?? '';
    if (!/^\d{1,16}$/.test(raw) || Number(raw) > MAX_ROUND_ID) {
      throw new InputError('round id must be a non-negative integer', { errors: [{ path: '/path/id', message: 'must be a non-negative integer' }] });
    }
    const found = await deps.rounds.findWithNeighbours(Number(raw));
    if (found === null) throw new NotFoundError('round_not_found', `round ${raw} is not indexed`);
    res.json({ ...found.round, prevId: found.prevId, nextId: found.nextId });
  });

  app.use('/api/v1', paid);

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
    res.on('finish', () => {
      logger.info('request', {
        requestId: res.getHeader('X-Request-Id'),
        method: req.method,
        path: req.path,
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
