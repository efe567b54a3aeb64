import type { Problem } from './types.ts';

/** The `RateLimit-*` headers of an answer (null when the gateway sent none). */
export interface RateLimit {
  /** Requests allowed in the window. */
  readonly limit: number;
  /** Requests left in the window. */
  readonly remaining: number;
  /** Seconds until the window is full again. */
  readonly reset: number;
}

/** One problem of a 400 answer: a JSON pointer to the offending value and what is wrong with it. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** Statuses after which the same request may succeed later (Retry-After says when). */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
/** Codes that mean "not yet": the same request succeeds once the chain catches up. */
const RETRYABLE_CODES = new Set(['payment_not_confirmed']);

/**
 * An answer of the API other than 2xx: its problem+json (RFC 9457) fields, typed.
 * `code` is the stable machine-readable reason (`rate_limited`, `nonce_expired`, ...);
 * an answer that was not problem+json gets `code` `http_<status>`.
 */
export class GridlabApiError extends Error {
  override readonly name = 'GridlabApiError';
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors: readonly FieldError[];
  /** True when the same request may succeed later (429, 502, 503, 504, payment_not_confirmed). */
  readonly retryable: boolean;
  /** Retry-After in milliseconds, when the answer carried one. */
  readonly retryAfterMs: number | null;
  readonly rateLimit: RateLimit | null;
  readonly requestId: string | null;

  constructor(init: {
    status: number;
    code: string;
    title: string;
    detail: string;
    errors?: readonly FieldError[];
    retryAfterMs?: number | null;
    rateLimit?: RateLimit | null;
    requestId?: string | null;
  }) {
    super(`${init.status} ${init.code}: ${init.detail}`);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.rateLimit = init.rateLimit ?? null;
    this.requestId = init.requestId ?? null;
    this.retryable = RETRYABLE_STATUSES.has(init.status) || RETRYABLE_CODES.has(init.code);
  }
}

/** The request did not complete within its timeout (per attempt). */
export class GridlabTimeoutError extends Error {
  override readonly name = 'GridlabTimeoutError';
  constructor(readonly timeoutMs: number, what: string) {
    super(`${what} did not answer within ${timeoutMs} ms`);
  }
}

/** The API could not be reached at all (connection refused, DNS, reset before an answer). */
export class GridlabNetworkError extends Error {
  override readonly name = 'GridlabNetworkError';
  constructor(what: string, override readonly cause: unknown) {
    super(`cannot reach ${what}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export function isGridlabApiError(error: unknown, code?: string): error is GridlabApiError {
  return error instanceof GridlabApiError && (code === undefined || error.code === code);
}

/** RateLimit-Limit / -Remaining / -Reset, or null when any is missing. */
export function readRateLimit(headers: Headers): RateLimit | null {
  const limit = Number(headers.get('ratelimit-limit') ?? NaN);
  const remaining = Number(headers.get('ratelimit-remaining') ?? NaN);
  const reset = Number(headers.get('ratelimit-reset') ?? NaN);
  if (![limit, remaining, reset].every(Number.isFinite)) return null;
  return { limit, remaining, reset };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function readRetryAfter(headers: Headers, now = Date.now()): number | null {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Builds the error for a non-2xx answer from its body text. */
export function errorFromAnswer(status: number, headers: Headers, text: string): GridlabApiError {
  let problem: Partial<Problem> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') problem = parsed;
  } catch {
    // not JSON: the raw text becomes the detail
  }
  const errors = Array.isArray(problem.errors)
    ? problem.errors.filter((e): e is FieldError => typeof e?.path === 'string' && typeof e?.message === 'string')
    : [];
  return new GridlabApiError({
    status,
    code: typeof problem.code === 'string' ? problem.code : `http_${status}`,
    title: typeof problem.title === 'string' ? problem.title : `HTTP ${status}`,
    detail: typeof problem.detail === 'string' ? problem.detail : text.slice(0, 500),
    errors,
    retryAfterMs: readRetryAfter(headers),
    rateLimit: readRateLimit(headers),
    requestId: headers.get('x-request-id'),
  });
}
