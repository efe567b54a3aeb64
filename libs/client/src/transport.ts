import { GridlabNetworkError, GridlabTimeoutError, errorFromAnswer, readRateLimit, type GridlabApiError, type RateLimit } from './errors.ts';

/** Retries of 429 and 503 answers after their Retry-After. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  readonly retries?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown (default 30 000 ms). */
  readonly maxDelayMs?: number;
  /** Wait when the answer has no Retry-After; doubled at each retry (default 1000 ms). */
  readonly baseDelayMs?: number;
}

export interface CallOptions {
  /** Cancels the call, including any wait before a retry. */
  readonly signal?: AbortSignal;
  /** Time limit of each attempt in milliseconds (default: the client's, 30 000). */
  readonly timeoutMs?: number;
  /** false: no retry of 429/503; else overrides the client's retry options. */
  readonly retry?: false | RetryOptions;
}

export interface TransportOptions {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  readonly retry?: false | RetryOptions;
  /** Any WHATWG fetch (default globalThis.fetch). */
  readonly fetch?: typeof fetch;
  /** Called with the RateLimit-* headers of every answer that carries them. */
  readonly onRateLimit?: (rateLimit: RateLimit) => void;
  /**
   * A dashboard page's browser session (same origin as the gateway): paid calls go to the
   * `/api/live` mirror of `/api/v1` with the session cookie instead of a key; public
   * calls stay on `/api/v1`.
   */
  readonly browserSession?: boolean;
}

export type QueryValue = string | number | boolean | undefined;

export interface RawRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly accept?: string;
  /** Sends the API key (default true). */
  readonly auth?: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRY: Required<RetryOptions> = { retries: 3, maxDelayMs: 30_000, baseDelayMs: 1000 };
const RETRY_STATUSES = new Set([429, 503]);

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // The abort reason is the caller's own, passed on as fetch passes it.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Fetch with the API's conventions: base URL, bearer key, timeouts, problem+json, retries. */
export class Transport {
  readonly baseUrl: string;
  apiKey: string | undefined;
  /** The RateLimit-* headers of the latest answer that carried them. */
  rateLimit: RateLimit | null = null;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  url(path: string, query?: Readonly<Record<string, QueryValue>>): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  /** One call, retried on 429/503 as configured; resolves with the 2xx Response (body unread). */
  async send(req: RawRequest, opts: CallOptions = {}): Promise<Response> {
    const retry = opts.retry ?? this.options.retry;
    const policy = retry === false ? null : { ...DEFAULT_RETRY, ...this.options.retry, ...retry };
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(req, opts);
      } catch (error) {
        const wait = policy === null ? null : retryDelay(error, attempt, policy);
        if (wait === null) throw error;
        await sleep(wait, opts.signal);
      }
    }
  }

  /** send() then the JSON body. */
  async json<T>(req: RawRequest, opts: CallOptions = {}): Promise<T> {
    const res = await this.send(req, opts);
    return (await res.json()) as T;
  }

  private async attempt(req: RawRequest, opts: CallOptions): Promise<Response> {
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new GridlabTimeoutError(timeoutMs, `${req.method} ${req.path}`)), timeoutMs);
    const signal = opts.signal === undefined ? timeout.signal : AbortSignal.any([opts.signal, timeout.signal]);
    const headers: Record<string, string> = { Accept: req.accept ?? 'application/json', ...req.headers };
    if (req.body !== undefined) headers['Content-Type'] = 'application/json';
    if (req.auth !== false && this.apiKey !== undefined) headers['Authorization'] = `Bearer ${this.apiKey}`;
    try {
      let res: Response;
      try {
        const path = this.options.browserSession === true && req.auth !== false ? req.path.replace(/^\/api\/v1\//, '/api/live/') : req.path;
        res = await this.fetchImpl(this.url(path, req.query), {
          method: req.method,
          ...(this.options.browserSession === true ? { credentials: 'same-origin' as const } : {}),
          headers,
          ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw new GridlabNetworkError(this.baseUrl, error);
      }
      const rateLimit = readRateLimit(res.headers);
      if (rateLimit !== null) {
        this.rateLimit = rateLimit;
        this.options.onRateLimit?.(rateLimit);
      }
      if (!res.ok) throw errorFromAnswer(res.status, res.headers, await res.text());
      return res;
    } catch (error) {
      // An abort while reading an error body surfaces as the signal's reason too.
      if (signal.aborted && !(error instanceof Error && error.name === 'GridlabApiError')) throw signal.reason;
      throw error;
    } finally {
      // The timer covers the wait for the answer's head; the caller owns the body after that.
      clearTimeout(timer);
    }
  }
}

/** Milliseconds to wait before retrying after `error`, or null to give up. */
function retryDelay(error: unknown, attempt: number, policy: Required<RetryOptions>): number | null {
  if (!(error instanceof Error) || error.name !== 'GridlabApiError') return null;
  const api = error as GridlabApiError;
  if (!RETRY_STATUSES.has(api.status) || attempt >= policy.retries) return null;
  const wait = api.retryAfterMs ?? policy.baseDelayMs * 2 ** attempt;
  return wait > policy.maxDelayMs ? null : wait;
}
