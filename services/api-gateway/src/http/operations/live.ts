import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { API } from '@gridlab/contracts';
import type { Caller } from '../../app/access';
import { addRateLimitHeaders, authorize, authorizeNow, liveUnavailable, rateLimitHeaders, sendError, type AppDeps } from '../app';
import type { AlertStream } from '../alert-stream';
import { admitStream } from '../caps';
import type { EventStream } from '../event-stream';
import type { MinerStream } from '../miner-stream';
import type { SnapshotStream } from '../sse';
import type { RawHandlers } from './handler';
import { compileParameters } from './parameters';

/** Responses over 1 KiB honour Accept-Encoding: gzip (SPEC 2). */
const GZIP_MIN_BYTES = 1024;
const LIVE_COST = API.getLive.cost;
const STREAM_COST = API.streamLive.cost;
const EVENTS_STREAM_COST = API.streamEvents.cost;
const MINER_STREAM_COST = API.streamMiner.cost;
const ALERT_STREAM_COST = API.streamAlerts.cost;

/** The gateway's server-sent event streams, each following its feed once per process. */
export interface GatewayStreams {
  readonly snapshots: SnapshotStream;
  readonly events: EventStream;
  readonly miners: MinerStream;
  readonly alerts: AlertStream;
}

/**
 * The operations the raw server answers. GET /live is answered from the cached bytes with
 * only what it needs (auth, rate limit, optional gzip; it has no parameters to check); a
 * stream pays its token at connect.
 */
export function rawHandlers(deps: AppDeps, { snapshots, events, miners, alerts }: GatewayStreams): RawHandlers {
  const eventsParams = compileParameters(API.streamEvents)!;
  const minerParams = compileParameters(API.streamMiner)!;
  const alertsParams = compileParameters(API.streamAlerts)!;
  let gzipFor: { seq: number; stale: boolean; bytes: Buffer } | null = null;
  const gzipped = (seq: number, stale: boolean, bytes: Buffer): Buffer => {
    if (gzipFor?.seq !== seq || gzipFor.stale !== stale) gzipFor = { seq, stale, bytes: gzipSync(bytes) };
    return gzipFor.bytes;
  };

  const fail = (res: ServerResponse, id: string) => (error: unknown) => {
    res.setHeader('X-Request-Id', id);
    sendError(res, error, deps.logger, id);
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
    // The hot path sets its headers in one writeHead call.
    res.writeHead(200, headers);
    res.end(body);
  };

  const subscribe = async (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => {
    const caller = await authorize(deps, req, STREAM_COST);
    admitStream(deps.streams, caller, req, res);
    snapshots.attach(res, { 'X-Request-Id': id, ...rateLimitHeaders(caller.decision) });
  };

  const followEvents = async (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => {
    // Parameters first: a bad request costs no token. `since` wins over Last-Event-ID (the header is
    // not even read then); neither: replay the last 50.
    const search = new URL(req.url ?? '/', 'http://gateway').searchParams;
    const { query, header } = eventsParams({ query: search, headers: search.has('since') ? {} : req.headers });
    const since = query.since ?? header['Last-Event-ID'] ?? null;
    const caller = await authorize(deps, req, EVENTS_STREAM_COST);
    admitStream(deps.streams, caller, req, res);
    await events.attach(res, { 'X-Request-Id': id, ...rateLimitHeaders(caller.decision) }, since, query.kind);
  };

  const followMiner = async (req: IncomingMessage, res: ServerResponse, id: string, path: Readonly<Record<string, string>>): Promise<void> => {
    // Parameters first: a bad address costs no token.
    const params = minerParams({ path, headers: req.headers });
    const caller = await authorize(deps, req, MINER_STREAM_COST);
    admitStream(deps.streams, caller, req, res);
    await miners.attach(res, { 'X-Request-Id': id, ...rateLimitHeaders(caller.decision) }, params.path.address, params.header['Last-Event-ID'] ?? null);
  };

  const followAlerts = async (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => {
    // Parameters first: a bad Last-Event-ID costs no token.
    const params = alertsParams({ headers: req.headers });
    const caller = await authorize(deps, req, ALERT_STREAM_COST);
    admitStream(deps.streams, caller, req, res);
    await alerts.attach(res, { 'X-Request-Id': id, ...rateLimitHeaders(caller.decision) }, caller.subscriberId, params.header['Last-Event-ID'] ?? null);
  };

  return {
    getLive: (req, res, id) => {
      // A leased key is answered in this turn, with no promise; otherwise after the lookup.
      const caller = authorizeNow(deps, req, LIVE_COST);
      if (caller === undefined) {
        authorize(deps, req, LIVE_COST).then((c) => answerLive(req, res, id, c)).catch(fail(res, id));
        return;
      }
      try {
        answerLive(req, res, id, caller);
      } catch (error) {
        fail(res, id)(error);
      }
    },
    streamLive: (req, res, id) => {
      res.setHeader('X-Request-Id', id);
      subscribe(req, res, id).catch(fail(res, id));
    },
    streamEvents: (req, res, id) => {
      res.setHeader('X-Request-Id', id);
      followEvents(req, res, id).catch(fail(res, id));
    },
    streamMiner: (req, res, id, path) => {
      res.setHeader('X-Request-Id', id);
      followMiner(req, res, id, path).catch(fail(res, id));
    },
    streamAlerts: (req, res, id) => {
      res.setHeader('X-Request-Id', id);
      followAlerts(req, res, id).catch(fail(res, id));
    },
  };
}
