import { GridlabApiError, type RateLimit } from './errors.ts';
import { OPERATIONS } from './generated/operations.ts';
import type { AlertStreamFiring } from './alerts.ts';
import { MINER_EXPORT_MEDIA, type MinerDeployed, type MinerExportFormat, type MinerStreamEvent } from './miners.ts';
import { INITIAL_WATCH_STATE, roundEvents, type RoundWatchEvent } from './rounds.ts';
import { SseParser, ndjsonLines, textChunks, type SseMessage } from './sse.ts';
import { Transport, sleep, type CallOptions, type QueryValue, type RawRequest, type TransportOptions } from './transport.ts';
import type {
  AlertCreateRequest,
  AlertUpdateRequest,
  AnalyticsRequest,
  BacktestRequest,
  EventKind,
  LiveView,
  LogEvent,
  MinerRound,
  OperationAnswer,
  OperationArgs,
  OperationId,
  OperationQuery,
  ReissueCompleteRequest,
  ReissueStartRequest,
  RequestArgs,
  RequestOperationId,
  Round,
  StrategyCreateRequest,
  StrategyUpdateRequest,
  SubscribeCompleteRequest,
  SubscribeStartRequest,
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

export interface MinerExportOptions extends CallOptions {
  /** Rounds below this id only (default: the whole ledger). */
  readonly before?: number;
}

export interface MinerStreamOptions extends StreamOptions {
  /** Send the wallet's settled rounds after this round id first (as Last-Event-ID). */
  readonly after?: number;
}

export interface AlertStreamOptions extends StreamOptions {
  /** Send the firings after this firing id first (as Last-Event-ID). */
  readonly after?: number;
}

/** Firing ids an alert stream remembers to drop a repeat (a replay overlapping what came live). */
const ALERT_IDS_REMEMBERED = 1000;

const DEFAULT_IDLE_MS = 45_000;
const DEFAULT_RECONNECT_MS = 500;
const DEFAULT_MAX_RECONNECT_MS = 30_000;
const DUMP_RESUMES = 5;
/** The cause recorded when the server closed a stream normally. */
const ENDED = Symbol('the server ended the stream');

/** An operation's arguments once the compiler has checked them against its operationId. */
interface SentArgs {
  readonly path?: Readonly<Record<string, string | number>>;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly headers?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
}

/**
 * The Gridlab API, one typed method per operation, and `request()` for any operation by
 * its operationId. Every method takes `CallOptions` (AbortSignal, timeout, retry); non-2xx
 * answers throw GridlabApiError.
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
  live(opts?: CallOptions): Promise<OperationAnswer<'getLive'>> {
    return this.call('getLive', {}, opts);
  }

  /**
   * GET /live/ev: every square's expected value for a stake added now (default 0.1 SOL),
   * ORE valued at `orePriceLamports` (default: the board's production cost), and the `k`
   * best squares.
   */
  liveEv(query: OperationQuery<'getLiveEv'> = {}, opts?: CallOptions): Promise<OperationAnswer<'getLiveEv'>> {
    return this.call('getLiveEv', { query }, opts);
  }

  /** GET /stats: whole-history statistics. */
  stats(opts?: CallOptions): Promise<OperationAnswer<'getStats'>> {
    return this.call('getStats', {}, opts);
  }

  /** GET /rounds: the latest rounds, newest first. */
  rounds(query: OperationQuery<'listRounds'> = {}, opts?: CallOptions): Promise<OperationAnswer<'listRounds'>> {
    return this.call('listRounds', { query }, opts);
  }

  /** GET /rounds/{id}. */
  round(id: number, opts?: CallOptions): Promise<OperationAnswer<'getRound'>> {
    return this.call('getRound', { path: { id } }, opts);
  }

  /** GET /grid/{n}: one square's statistics and hit series. */
  grid(n: number, query: OperationQuery<'getGrid'> = {}, opts?: CallOptions): Promise<OperationAnswer<'getGrid'>> {
    return this.call('getGrid', { path: { n }, query }, opts);
  }

  /** GET /dump as a JSON page. */
  dumpPage(query: OperationQuery<'dumpRounds'> = {}, opts?: CallOptions): Promise<OperationAnswer<'dumpRounds'>> {
    return this.call('dumpRounds', { query }, opts);
  }

  /**
   * GET /dump as NDJSON: every round of the range, ascending, as an async iterator. A
   * connection dropped midway is resumed from the next round (no round repeated).
   */
  async *dump(options: DumpOptions = {}): AsyncGenerator<Round> {
    const { from, to, resume = true, ...opts } = options;
    let next = from;
    for (let resumes = 0; ; resumes++) {
      const res = await this.http.send({ ...this.requestOf('dumpRounds', { query: { from: next, to } }), accept: 'application/x-ndjson' }, opts);
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
    return this.call('getOpenApi', {}, opts);
  }

  // --- Billing ---------------------------------------------------------------------------

  /** GET /pricing (no key needed). */
  pricing(opts?: CallOptions): Promise<OperationAnswer<'getPricing'>> {
    return this.call('getPricing', {}, opts);
  }

  /** POST /subscribe: a payment nonce and instructions (see `subscribe()` of @gridlab/client/wallet for the whole flow). */
  startSubscription(body: SubscribeStartRequest, opts?: CallOptions): Promise<OperationAnswer<'startSubscription'>> {
    return this.call('startSubscription', { body }, opts);
  }

  /** PUT /subscribe: redeem a confirmed payment for a key. */
  completeSubscription(body: SubscribeCompleteRequest, opts?: CallOptions): Promise<OperationAnswer<'completeSubscription'>> {
    return this.call('completeSubscription', { body }, opts);
  }

  /** POST /reissue: a nonce and the message the wallet signs. */
  startReissue(body: ReissueStartRequest, opts?: CallOptions): Promise<OperationAnswer<'startReissue'>> {
    return this.call('startReissue', { body }, opts);
  }

  /** PUT /reissue: the signed message for a new key (the old one stops working). */
  completeReissue(body: ReissueCompleteRequest, opts?: CallOptions): Promise<OperationAnswer<'completeReissue'>> {
    return this.call('completeReissue', { body }, opts);
  }

  // --- Event log -------------------------------------------------------------------------

  /** GET /events: events after `since`, ascending. */
  events(query: OperationQuery<'listEvents'> = {}, opts?: CallOptions): Promise<OperationAnswer<'listEvents'>> {
    return this.call('listEvents', { query }, opts);
  }

  /**
   * GET /events/stream as an async iterator of events. Reconnects after a drop with
   * Last-Event-ID, so no event is lost or repeated.
   */
  async *eventStream(options: EventStreamOptions = {}): AsyncGenerator<LogEvent> {
    let last = options.since ?? null;
    const messages = this.resumable(
      (lastEventId) =>
        this.requestOf('streamEvents', {
          query: { since: lastEventId === null ? options.since : Number(lastEventId), kind: options.kind },
          ...(lastEventId === null ? {} : { headers: { 'Last-Event-ID': Number(lastEventId) } }),
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
    for await (const message of this.resumable(() => this.requestOf('streamLive', {}), options)) {
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

  // --- Miners ----------------------------------------------------------------------------

  /** GET /miners/{address}: a wallet's summary (all time, 24 h, 7 d, 30 d) and what it can claim now. */
  miner(address: string, opts?: CallOptions): Promise<OperationAnswer<'getMiner'>> {
    return this.call('getMiner', { path: { address } }, opts);
  }

  /** GET /miners/{address}/rounds: a page of its ledger, newest first (`nextBefore` for the next). */
  minerRounds(address: string, query: OperationQuery<'listMinerRounds'> = {}, opts?: CallOptions): Promise<OperationAnswer<'listMinerRounds'>> {
    return this.call('listMinerRounds', { path: { address }, query }, opts);
  }

  /**
   * GET /miners/{address}/rounds as NDJSON: its whole ledger below `before`, newest first,
   * one row at a time as it arrives (constant memory).
   */
  async *exportMinerRounds(address: string, options: MinerExportOptions = {}): AsyncGenerator<MinerRound> {
    const { before, ...opts } = options;
    const res = await this.http.send({ ...this.requestOf('listMinerRounds', { path: { address }, query: { before } }), accept: MINER_EXPORT_MEDIA.ndjson }, opts);
    for await (const line of ndjsonLines(res.body!)) yield JSON.parse(line) as MinerRound;
  }

  /** The same export as the server writes it (NDJSON or CSV with its header line), in text chunks, to save as a file. */
  async *exportMinerRoundsText(address: string, format: MinerExportFormat, options: MinerExportOptions = {}): AsyncGenerator<string> {
    const { before, ...opts } = options;
    const res = await this.http.send({ ...this.requestOf('listMinerRounds', { path: { address }, query: { before } }), accept: MINER_EXPORT_MEDIA[format] }, opts);
    yield* textChunks(res.body!);
  }

  /** GET /miners/{address}/performance: per hour (48 h) or per day (all time), with running totals. */
  minerPerformance(address: string, query: OperationQuery<'getMinerPerformance'> = {}, opts?: CallOptions): Promise<OperationAnswer<'getMinerPerformance'>> {
    return this.call('getMinerPerformance', { path: { address }, query }, opts);
  }

  /** GET /miners: the top miners of a window by net, ORE, SOL deployed or rounds. */
  topMiners(query: OperationQuery<'listTopMiners'> = {}, opts?: CallOptions): Promise<OperationAnswer<'listTopMiners'>> {
    return this.call('listTopMiners', { query }, opts);
  }

  /** GET /rounds/{id}/miners: every wallet of a settled round and how each came out. */
  roundMiners(id: number, opts?: CallOptions): Promise<OperationAnswer<'getRoundMiners'>> {
    return this.call('getRoundMiners', { path: { id } }, opts);
  }

  /**
   * GET /miners/{address}/stream as an async iterator: the wallet's deploys in the live
   * round and its row of each round it played as it settles (with `after`, the rounds
   * since then first). Reconnects with Last-Event-ID: no settled round is lost or repeated
   * (deploys made while disconnected are not sent again).
   */
  async *minerStream(address: string, options: MinerStreamOptions = {}): AsyncGenerator<MinerStreamEvent> {
    let last = options.after ?? null;
    // Each connection resumes after the last round delivered (the ids are round ids).
    const messages = this.resumable(() => this.requestOf('streamMiner', { path: { address }, ...(last === null ? {} : { headers: { 'Last-Event-ID': last } }) }), options);
    for await (const message of messages) {
      if (message.event === 'deploy') yield { type: 'deploy', deploy: JSON.parse(message.data) as MinerDeployed };
      if (message.event !== 'round') continue;
      const round = JSON.parse(message.data) as MinerRound;
      if (last !== null && round.roundId <= last) continue;
      last = round.roundId;
      yield { type: 'round', round };
    }
  }

  // --- Strategy Lab ----------------------------------------------------------------------

  /** GET /lab/strategies: the caller's strategies. */
  listStrategies(opts?: CallOptions): Promise<OperationAnswer<'listStrategies'>> {
    return this.call('listStrategies', {}, opts);
  }

  /** POST /lab/strategies: create a strategy; forward testing starts at the next round. */
  createStrategy(body: StrategyCreateRequest, opts?: CallOptions): Promise<OperationAnswer<'createStrategy'>> {
    return this.call('createStrategy', { body }, opts);
  }

  /** GET /lab/strategies/{id}. */
  strategy(id: string, opts?: CallOptions): Promise<OperationAnswer<'getStrategy'>> {
    return this.call('getStrategy', { path: { id } }, opts);
  }

  /** PATCH /lab/strategies/{id}: rename, deactivate or reactivate. */
  updateStrategy(id: string, body: StrategyUpdateRequest, opts?: CallOptions): Promise<OperationAnswer<'updateStrategy'>> {
    return this.call('updateStrategy', { path: { id }, body }, opts);
  }

  /** DELETE /lab/strategies/{id}: recoverable with restoreStrategy() until it is purged. */
  deleteStrategy(id: string, opts?: CallOptions): Promise<OperationAnswer<'deleteStrategy'>> {
    return this.call('deleteStrategy', { path: { id } }, opts);
  }

  /** POST /lab/strategies/{id}/restore: brings back a deleted strategy (404 once purged). */
  restoreStrategy(id: string, opts?: CallOptions): Promise<OperationAnswer<'restoreStrategy'>> {
    return this.call('restoreStrategy', { path: { id } }, opts);
  }

  /** GET /lab/strategies/{id}/forward: forward-test figures. */
  forward(id: string, opts?: CallOptions): Promise<OperationAnswer<'getForwardStats'>> {
    return this.call('getForwardStats', { path: { id } }, opts);
  }

  /** POST /lab/backtest. */
  backtest(body: BacktestRequest, opts?: CallOptions): Promise<OperationAnswer<'runBacktest'>> {
    return this.call('runBacktest', { body }, opts);
  }

  /** POST /lab/analytics: Monte-Carlo analytics and sweeps. */
  analytics(body: AnalyticsRequest, opts?: CallOptions): Promise<OperationAnswer<'runAnalytics'>> {
    return this.call('runAnalytics', { body }, opts);
  }

  /** GET /lab/leaderboard (no key needed). */
  leaderboard(opts?: CallOptions): Promise<OperationAnswer<'getLeaderboard'>> {
    return this.call('getLeaderboard', {}, opts);
  }

  /** GET /lab/leaderboard/{id}: an entry with its DSL and equity curve. */
  leaderboardEntry(id: string, opts?: CallOptions): Promise<OperationAnswer<'getLeaderboardEntry'>> {
    return this.call('getLeaderboardEntry', { path: { id } }, opts);
  }

  // --- Alerts ------------------------------------------------------------------------------

  /** GET /alerts: the caller's alert rules. */
  alerts(opts?: CallOptions): Promise<OperationAnswer<'listAlerts'>> {
    return this.call('listAlerts', {}, opts);
  }

  /** POST /alerts: a new rule; the answer's `secret` (whsec_...) verifies its webhooks and is shown this once. */
  createAlert(body: AlertCreateRequest, opts?: CallOptions): Promise<OperationAnswer<'createAlert'>> {
    return this.call('createAlert', { body }, opts);
  }

  /**
   * GET /alerts/stream as an async iterator: the caller's firings as the notifier stores
   * them (with `after`, the firings since that id first). Reconnects with Last-Event-ID,
   * the highest id received: no firing is lost or repeated.
   */
  async *alertStream(options: AlertStreamOptions = {}): AsyncGenerator<AlertStreamFiring> {
    let last = options.after ?? null;
    const seen = new Set<number>();
    const messages = this.resumable(() => this.requestOf('streamAlerts', last === null ? {} : { headers: { 'Last-Event-ID': last } }), options);
    for await (const message of messages) {
      if (message.event !== 'firing') continue;
      const firing = JSON.parse(message.data) as AlertStreamFiring;
      // Two notifier replicas may store firings out of id order: a lower id can be new, so ids are remembered, not compared.
      if (seen.has(firing.id)) continue;
      seen.add(firing.id);
      if (seen.size > ALERT_IDS_REMEMBERED) seen.delete(seen.values().next().value!);
      last = Math.max(last ?? 0, firing.id);
      yield firing;
    }
  }

  /** GET /alerts/{id}. */
  alert(id: string, opts?: CallOptions): Promise<OperationAnswer<'getAlert'>> {
    return this.call('getAlert', { path: { id } }, opts);
  }

  /** PATCH /alerts/{id}: the fields given replace the rule's (null clears an optional one). */
  updateAlert(id: string, body: AlertUpdateRequest, opts?: CallOptions): Promise<OperationAnswer<'updateAlert'>> {
    return this.call('updateAlert', { path: { id }, body }, opts);
  }

  /** DELETE /alerts/{id}: the rule, its firings and its delivery log. */
  deleteAlert(id: string, opts?: CallOptions): Promise<OperationAnswer<'deleteAlert'>> {
    return this.call('deleteAlert', { path: { id } }, opts);
  }

  /** POST /alerts/{id}/secret: a new signing secret; the previous ones sign beside it for 24 h. */
  rotateAlertSecret(id: string, opts?: CallOptions): Promise<OperationAnswer<'rotateAlertSecret'>> {
    return this.call('rotateAlertSecret', { path: { id } }, opts);
  }

  /** POST /alerts/{id}/test: one alert.test delivery now, and how it went. */
  testAlert(id: string, opts?: CallOptions): Promise<OperationAnswer<'testAlert'>> {
    return this.call('testAlert', { path: { id } }, opts);
  }

  /** GET /alerts/{id}/deliveries: the rule's latest firings, each with its attempts. */
  alertDeliveries(id: string, opts?: CallOptions): Promise<OperationAnswer<'listAlertDeliveries'>> {
    return this.call('listAlertDeliveries', { path: { id } }, opts);
  }

  /** POST /alerts/{id}/deliveries/{firingId}/redeliver: the firing queued again under its webhook-id. */
  redeliverAlert(id: string, firingId: number, opts?: CallOptions): Promise<OperationAnswer<'redeliverAlert'>> {
    return this.call('redeliverAlert', { path: { id, firingId } }, opts);
  }

  // --- Any operation ---------------------------------------------------------------------

  /**
   * Any operation of the API by its operationId (the OpenAPI document's), including those
   * with no method of their own: `args` holds its `path` parameters, `query` and `body`,
   * typed from the document, and the answer is its success body (undefined for a 204).
   * The API key is sent only to the operations that take it. The event streams are read
   * with stream() and eventStream().
   *
   * ```ts
   * const round = await gridlab.request('getRound', { path: { id: 42 } });
   * ```
   */
  request<Id extends RequestOperationId>(operationId: Id, ...[args, opts]: RequestArgs<Id>): Promise<OperationAnswer<Id>> {
    return this.call(operationId, args ?? ({} as OperationArgs<Id>), opts);
  }

  // --- Internals -------------------------------------------------------------------------

  /**
   * One operation by its operationId, its method, path and access from the generated
   * table: the arguments and the answer are typed from the generated `operations`, so an
   * operation renamed or removed in the OpenAPI document breaks this package's build
   * rather than its users.
   */
  private async call<Id extends OperationId>(operationId: Id, args: OperationArgs<Id>, opts?: CallOptions): Promise<OperationAnswer<Id>> {
    const request = this.requestOf(operationId, args);
    // Its body never ends: JSON parsing would wait for ever.
    if (OPERATIONS[operationId].answers === 'text/event-stream') throw new TypeError(`${operationId} answers an event stream: read it with stream() or eventStream()`);
    const res = await this.http.send(request, opts);
    if (res.status === 204) return undefined as OperationAnswer<Id>;
    return (await res.json()) as OperationAnswer<Id>;
  }

  /** The request of an operation: its path template filled in, and the key only where the operation takes it. */
  private requestOf<Id extends OperationId>(operationId: Id, args: OperationArgs<Id>): RawRequest {
    // The caller may be JavaScript, or a command line naming the operation.
    if (!Object.hasOwn(OPERATIONS, operationId)) throw new TypeError(`${String(operationId)} is not an operation of the API`);
    const route = OPERATIONS[operationId];
    const { path = {}, query, headers, body } = args as SentArgs;
    const url = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = path[name];
      if (value === undefined) throw new TypeError(`${operationId} needs the path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    const sent = Object.entries(headers ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)] as const]));
    return {
      method: route.method.toUpperCase() as RawRequest['method'],
      path: url,
      ...(query === undefined ? {} : { query }),
      ...(sent.length === 0 ? {} : { headers: Object.fromEntries(sent) }),
      ...(body === undefined ? {} : { body }),
      auth: route.access === 'paid',
    };
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
