import { GridlabApiError, type RateLimit } from './errors.ts';
import { INITIAL_WATCH_STATE, roundEvents, type RoundWatchEvent } from './rounds.ts';
import { SseParser, ndjsonLines, textChunks, type SseMessage } from './sse.ts';
import { Transport, sleep, type CallOptions, type RawRequest, type TransportOptions } from './transport.ts';
import type {
  AnalyticsRequest,
  BacktestRequest,
  EventKind,
  LiveView,
  LogEvent,
  MethodOf,
  OkBody,
  PathParams,
  Query,
  ReissueCompleteRequest,
  ReissueStartRequest,
  RequestBody,
  Round,
  StrategyCreateRequest,
  StrategyUpdateRequest,
  SubscribeCompleteRequest,
  SubscribeStartRequest,
  paths,
} from './types.ts';

export type GridlabClientOptions = TransportOptions;

/** Options of the streaming methods. */
export interface StreamOptions {
  /** Ends the stream (the iterator returns). */
  readonly signal?: AbortSignal;
  /** Reconnect after a drop, resuming where the stream stopped (default true). */
  readonly reconnect?: boolean;
  /** First wait before reconnecting (default 500 ms, or the server's `retry:`); doubles up to maxReconnectDelayMs. */
  readonly reconnectDelayMs?: number;
  readonly maxReconnectDelayMs?: number;
  /** Reconnect when nothing (not even a ping, sent every 15 s) arrives for this long (default 45 000 ms). */
  readonly idleTimeoutMs?: number;
  /** Time limit for the answer's headers at each connection (default 30 000 ms). */
  readonly timeoutMs?: number;
  /** Called before each reconnection with the cause and the id the stream resumes from. */
  readonly onReconnect?: (info: { readonly attempt: number; readonly lastEventId: string | null; readonly cause: unknown }) => void;
}

export interface EventStreamOptions extends StreamOptions {
  /** Start after this event id (else the last 50 events are replayed first). */
  readonly since?: number;
  readonly kind?: EventKind;
}

export interface DumpOptions extends CallOptions {
  readonly from?: number;
  readonly to?: number;
  /** Resume after a dropped connection from the round after the last one received (default true). */
  readonly resume?: boolean;
}

const API = '/api/v1';
const DEFAULT_IDLE_MS = 45_000;
const DEFAULT_RECONNECT_MS = 500;
const DEFAULT_MAX_RECONNECT_MS = 30_000;
const DUMP_RESUMES = 5;
/** The cause recorded when the server closed a stream normally. */
const ENDED = Symbol('the server ended the stream');

/**
 * The Gridlab API, one typed method per operation. Every method takes `CallOptions`
 * (AbortSignal, timeout, retry); non-2xx answers throw GridlabApiError.
 *
 * ```ts
 * const gridlab = new GridlabClient({ baseUrl: 'http://127.0.0.1:8080', apiKey });
 * const live = await gridlab.live();
 * ```
 */
export class GridlabClient {
  private readonly http: Transport;

  constructor(options: GridlabClientOptions) {
    this.http = new Transport(options);
  }

  /** The RateLimit-* headers of the latest answer that carried them. */
  get rateLimit(): RateLimit | null {
    return this.http.rateLimit;
  }

  /** The key sent as `Authorization: Bearer` (set after subscribe or reissue). */
  get apiKey(): string | undefined {
    return this.http.apiKey;
  }

  set apiKey(key: string | undefined) {
    this.http.apiKey = key;
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  // --- Rounds and statistics -------------------------------------------------------------

  /** GET /live: the current round, with `stale`. */
  live(opts?: CallOptions): Promise<OkBody<'/api/v1/live', 'get'>> {
    return this.call('get', '/api/v1/live', {}, opts);
  }

  /**
   * GET /live/ev: every square's expected value for a stake added now (default 0.1 SOL),
   * ORE valued at `orePriceLamports` (default: the board's production cost), and the `k`
   * best squares.
   */
  liveEv(query: Query<'/api/v1/live/ev', 'get'> = {}, opts?: CallOptions): Promise<OkBody<'/api/v1/live/ev', 'get'>> {
    return this.call('get', '/api/v1/live/ev', { query }, opts);
  }

  /** GET /stats: whole-history statistics. */
  stats(opts?: CallOptions): Promise<OkBody<'/api/v1/stats', 'get'>> {
    return this.call('get', '/api/v1/stats', {}, opts);
  }

  /** GET /rounds: the latest rounds, newest first. */
  rounds(query: Query<'/api/v1/rounds', 'get'> = {}, opts?: CallOptions): Promise<OkBody<'/api/v1/rounds', 'get'>> {
    return this.call('get', '/api/v1/rounds', { query }, opts);
  }

  /** GET /rounds/{id}. */
  round(id: number, opts?: CallOptions): Promise<OkBody<'/api/v1/rounds/{id}', 'get'>> {
    return this.call('get', '/api/v1/rounds/{id}', { path: { id } }, opts);
  }

  /** GET /grid/{n}: one square's statistics and hit series. */
  grid(n: number, query: Query<'/api/v1/grid/{n}', 'get'> = {}, opts?: CallOptions): Promise<OkBody<'/api/v1/grid/{n}', 'get'>> {
    return this.call('get', '/api/v1/grid/{n}', { path: { n }, query }, opts);
  }

  /** GET /dump as a JSON page. */
  dumpPage(query: Query<'/api/v1/dump', 'get'> = {}, opts?: CallOptions): Promise<OkBody<'/api/v1/dump', 'get'>> {
    return this.call('get', '/api/v1/dump', { query }, opts);
  }

  /**
   * GET /dump as NDJSON: every round of the range, ascending, as an async iterator. A
   * connection dropped midway is resumed from the next round (no round repeated).
   */
  async *dump(options: DumpOptions = {}): AsyncGenerator<Round> {
    const { from, to, resume = true, ...opts } = options;
    let next = from;
    for (let resumes = 0; ; resumes++) {
      const res = await this.http.send({ method: 'GET', path: `${API}/dump`, query: { from: next, to }, accept: 'application/x-ndjson' }, opts);
      try {
        for await (const line of ndjsonLines(res.body!)) {
          const round = JSON.parse(line) as Round;
          if (next !== undefined && round.id < next) continue;
          next = round.id + 1;
          yield round;
        }
        return;
      } catch (error) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        if (!resume || resumes >= DUMP_RESUMES || error instanceof SyntaxError) throw error;
      }
    }
  }

  /** GET /openapi.json: the API's OpenAPI document. */
  openapi(opts?: CallOptions): Promise<Record<string, unknown>> {
    return this.http.json({ method: 'GET', path: `${API}/openapi.json`, auth: false }, opts);
  }

  // --- Billing ---------------------------------------------------------------------------

  /** GET /pricing (no key needed). */
  pricing(opts?: CallOptions): Promise<OkBody<'/api/v1/pricing', 'get'>> {
    return this.call('get', '/api/v1/pricing', { auth: false }, opts);
  }

  /** POST /subscribe: a payment nonce and instructions (see `subscribe()` of @gridlab/client/wallet for the whole flow). */
  startSubscription(body: SubscribeStartRequest, opts?: CallOptions): Promise<OkBody<'/api/v1/subscribe', 'post'>> {
    return this.call('post', '/api/v1/subscribe', { body, auth: false }, opts);
  }

  /** PUT /subscribe: redeem a confirmed payment for a key. */
  completeSubscription(body: SubscribeCompleteRequest, opts?: CallOptions): Promise<OkBody<'/api/v1/subscribe', 'put'>> {
    return this.call('put', '/api/v1/subscribe', { body, auth: false }, opts);
  }

  /** POST /reissue: a nonce and the message the wallet signs. */
  startReissue(body: ReissueStartRequest, opts?: CallOptions): Promise<OkBody<'/api/v1/reissue', 'post'>> {
    return this.call('post', '/api/v1/reissue', { body, auth: false }, opts);
  }

  /** PUT /reissue: the signed message for a new key (the old one stops working). */
  completeReissue(body: ReissueCompleteRequest, opts?: CallOptions): Promise<OkBody<'/api/v1/reissue', 'put'>> {
    return this.call('put', '/api/v1/reissue', { body, auth: false }, opts);
  }

  // --- Event log -------------------------------------------------------------------------

  /** GET /events: events after `since`, ascending. */
  events(query: Query<'/api/v1/events', 'get'> = {}, opts?: CallOptions): Promise<OkBody<'/api/v1/events', 'get'>> {
    return this.call('get', '/api/v1/events', { query }, opts);
  }

  /**
   * GET /events/stream as an async iterator of events. Reconnects after a drop with
   * Last-Event-ID, so no event is lost or repeated.
   */
  async *eventStream(options: EventStreamOptions = {}): AsyncGenerator<LogEvent> {
    let last = options.since ?? null;
    const messages = this.resumable(
      (lastEventId) => ({
        method: 'GET',
        path: `${API}/events/stream`,
        query: { since: lastEventId === null ? options.since : Number(lastEventId), kind: options.kind },
        ...(lastEventId === null ? {} : { headers: { 'Last-Event-ID': lastEventId } }),
      }),
      options,
    );
    for await (const message of messages) {
      const event = JSON.parse(message.data) as LogEvent;
      if (last !== null && event.id <= last) continue;
      last = event.id;
      yield event;
    }
  }

  // --- Live stream -----------------------------------------------------------------------

  /**
   * GET /stream as an async iterator of live snapshots: the current state first, then each
   * change. Reconnects after a drop; the state the server sends first after a reconnect is
   * skipped when it is the one already delivered.
   */
  async *stream(options: StreamOptions = {}): AsyncGenerator<LiveView> {
    let last: string | null = null;
    for await (const message of this.resumable(() => ({ method: 'GET', path: `${API}/stream` }), options)) {
      if (message.event !== 'snapshot') continue;
      const view = JSON.parse(message.data) as LiveView;
      const key = `${view.roundId}|${view.updatedAt}|${view.stale}`;
      if (key === last) continue;
      last = key;
      yield view;
    }
  }

  /**
   * Round opened / updated / settled, from the snapshot stream. Every round that settles
   * while watching is reported once and in order: those no snapshot showed (settled while
   * the stream reconnected) are read from the history (/dump) first.
   */
  async *watchRounds(options: StreamOptions = {}): AsyncGenerator<RoundWatchEvent> {
    let state = INITIAL_WATCH_STATE;
    for await (const snapshot of this.stream(options)) {
      const next = roundEvents(state, snapshot);
      state = next.state;
      for (const event of next.events) {
        if (event.type === 'settled' && next.missed !== null) {
          const range = { from: next.missed.from, to: next.missed.to, ...(options.signal === undefined ? {} : { signal: options.signal }) };
          for await (const round of this.dump(range)) yield { type: 'settled', roundId: round.id, round };
        }
        yield event;
      }
    }
  }

  // --- Strategy Lab ----------------------------------------------------------------------

  /** GET /lab/strategies: the caller's strategies. */
  listStrategies(opts?: CallOptions): Promise<OkBody<'/api/v1/lab/strategies', 'get'>> {
    return this.call('get', '/api/v1/lab/strategies', {}, opts);
  }

  /** POST /lab/strategies: create a strategy; forward testing starts at the next round. */
  createStrategy(body: StrategyCreateRequest, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/strategies', 'post'>> {
    return this.call('post', '/api/v1/lab/strategies', { body }, opts);
  }

  /** GET /lab/strategies/{id}. */
  strategy(id: string, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/strategies/{id}', 'get'>> {
    return this.call('get', '/api/v1/lab/strategies/{id}', { path: { id } }, opts);
  }

  /** PATCH /lab/strategies/{id}: rename, deactivate or reactivate. */
  updateStrategy(id: string, body: StrategyUpdateRequest, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/strategies/{id}', 'patch'>> {
    return this.call('patch', '/api/v1/lab/strategies/{id}', { path: { id }, body }, opts);
  }

  /** DELETE /lab/strategies/{id}: recoverable with restoreStrategy() until it is purged. */
  deleteStrategy(id: string, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/strategies/{id}', 'delete'>> {
    return this.call('delete', '/api/v1/lab/strategies/{id}', { path: { id } }, opts);
  }

  /** POST /lab/strategies/{id}/restore: brings back a deleted strategy (404 once purged). */
  restoreStrategy(id: string, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/strategies/{id}/restore', 'post'>> {
    return this.call('post', '/api/v1/lab/strategies/{id}/restore', { path: { id } }, opts);
  }

  /** GET /lab/strategies/{id}/forward: forward-test figures. */
  forward(id: string, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/strategies/{id}/forward', 'get'>> {
    return this.call('get', '/api/v1/lab/strategies/{id}/forward', { path: { id } }, opts);
  }

  /** POST /lab/backtest. */
  backtest(body: BacktestRequest, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/backtest', 'post'>> {
    return this.call('post', '/api/v1/lab/backtest', { body }, opts);
  }

  /** POST /lab/analytics: Monte-Carlo analytics and sweeps. */
  analytics(body: AnalyticsRequest, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/analytics', 'post'>> {
    return this.call('post', '/api/v1/lab/analytics', { body }, opts);
  }

  /** GET /lab/leaderboard (no key needed). */
  leaderboard(opts?: CallOptions): Promise<OkBody<'/api/v1/lab/leaderboard', 'get'>> {
    return this.call('get', '/api/v1/lab/leaderboard', { auth: false }, opts);
  }

  /** GET /lab/leaderboard/{id}: an entry with its DSL and equity curve. */
  leaderboardEntry(id: string, opts?: CallOptions): Promise<OkBody<'/api/v1/lab/leaderboard/{id}', 'get'>> {
    return this.call('get', '/api/v1/lab/leaderboard/{id}', { path: { id } }, opts);
  }

  // --- Internals -------------------------------------------------------------------------

  /**
   * One operation of the document, by its path template and method: the path, query and
   * body are typed from the generated `paths`, and so is the answer, so a route renamed or
   * removed in the OpenAPI document breaks this package's build rather than its users.
   */
  private call<P extends keyof paths, M extends MethodOf<P>>(
    method: M,
    path: P,
    input: { readonly path?: PathParams<P, M>; readonly query?: Query<P, M>; readonly body?: RequestBody<P, M>; readonly auth?: boolean },
    opts?: CallOptions,
  ): Promise<OkBody<P, M>> {
    const params = (input.path ?? {}) as Readonly<Record<string, string | number>>;
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
    const request: RawRequest = {
      method: method.toUpperCase() as RawRequest['method'],
      path: url,
      ...(input.query === undefined ? {} : { query: input.query }),
      ...(input.body === undefined ? {} : { body: input.body }),
      ...(input.auth === undefined ? {} : { auth: input.auth }),
    };
    return this.http.json<OkBody<P, M>>(request, opts);
  }

  /**
   * The messages of an event stream across reconnections. `open` builds the request from
   * the last event id received (null before any). Errors that a retry cannot fix (401,
   * 402, 400) end the stream by throwing; drops, 5xx and idle connections reconnect.
   */
  private async *resumable(open: (lastEventId: string | null) => RawRequest, options: StreamOptions): AsyncGenerator<SseMessage> {
    const { signal, reconnect = true } = options;
    let lastEventId: string | null = null;
    let serverRetry: number | null = null;
    let failures = 0;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) return;
      const connection = new AbortController();
      const stop = (): void => connection.abort(signal?.reason);
      signal?.addEventListener('abort', stop, { once: true });
      const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
      let idle: ReturnType<typeof setTimeout> | undefined;
      const touch = (): void => {
        clearTimeout(idle);
        idle = setTimeout(() => connection.abort(new Error(`no data for ${idleMs} ms`)), idleMs);
      };
      let cause: unknown = ENDED;
      try {
        const res = await this.http.send(
          { ...open(lastEventId), accept: 'text/event-stream' },
          { signal: connection.signal, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) },
        );
        touch();
        const parser = new SseParser();
        for await (const text of textChunks(res.body!)) {
          touch();
          for (const message of parser.push(text)) {
            if (message.retry !== null) serverRetry = message.retry;
            if (message.id !== null) lastEventId = message.id;
            failures = 0;
            yield message;
          }
        }
      } catch (error) {
        if (signal?.aborted) return;
        if (error instanceof GridlabApiError && !error.retryable) throw error;
        cause = connection.signal.aborted ? connection.signal.reason : error;
      } finally {
        clearTimeout(idle);
        signal?.removeEventListener('abort', stop);
        connection.abort();
      }
      if (!reconnect) {
        if (cause === ENDED) return;
        throw cause;
      }
      const base = serverRetry ?? options.reconnectDelayMs ?? DEFAULT_RECONNECT_MS;
      const delay = Math.min(base * 2 ** failures, options.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_MS);
      failures++;
      options.onReconnect?.({ attempt: attempt + 1, lastEventId, cause: cause === ENDED ? new Error('the server ended the stream') : cause });
      try {
        await sleep(delay, signal);
      } catch {
        return;
      }
    }
  }
}
