/** Broad class of a failure; transports map it to a status or an ack policy. */
export type ErrorKind =
  | 'input'
  | 'not_found'
  | 'conflict'
  | 'unavailable'
  | 'chain'
  | 'config'
  | 'decode'
  | 'unauthenticated'
  | 'forbidden'
  | 'payment_required'
  | 'rate_limited'
  | 'timeout'
  | 'gone'
  | 'unprocessable';

/** One problem with one field of an input document, addressed by JSON pointer. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

interface GridlabErrorOptions {
  readonly cause?: unknown;
  readonly retryable?: boolean;
  readonly errors?: readonly FieldError[];
  /** Seconds after which a retry may succeed (sent as Retry-After). */
  readonly retryAfterSeconds?: number;
}

/** Base of every business error: a stable machine code and a human detail. */
export abstract class GridlabError extends Error {
  abstract readonly kind: ErrorKind;
  readonly code: string;
  readonly retryable: boolean;
  readonly errors: readonly FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  protected constructor(code: string, detail: string, options: GridlabErrorOptions, retryable: boolean) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? retryable;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The caller sent something invalid; retrying the same input cannot help. */
export class InputError extends GridlabError {
  readonly kind = 'input';
  constructor(detail: string, options: GridlabErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'invalid_request', detail, options, false);
  }
}

/** The addressed thing does not exist (or is not the caller's). */
export class NotFoundError extends GridlabError {
  readonly kind = 'not_found';
  constructor(code: string, detail: string, options: GridlabErrorOptions = {}) {
    super(code, detail, options, false);
  }
}

/** The request conflicts with the current state (consumed nonce, duplicate, limit). */
export class ConflictError extends GridlabError {
  readonly kind = 'conflict';
  constructor(code: string, detail: string, options: GridlabErrorOptions = {}) {
    super(code, detail, options, false);
  }
}

/** A dependency (database, bus, cache) is down or has no responder; retry later. */
export class UnavailableError extends GridlabError {
  readonly kind = 'unavailable';
  constructor(detail: string, options: GridlabErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'service_unavailable', detail, options, true);
  }
}

/** The Solana RPC endpoint is unreachable or answered with an error; retry later. */
export class ChainError extends GridlabError {
  readonly kind = 'chain';
  constructor(detail: string, options: GridlabErrorOptions = {}) {
    super('chain_unavailable', detail, options, true);
  }
}

/** Configuration failed validation; `errors` lists every bad key (never its value). */
export class ConfigError extends GridlabError {
  readonly kind = 'config';
  constructor(detail: string, options: GridlabErrorOptions = {}) {
    super('invalid_config', detail, options, false);
  }
}

/**
 * Bytes that do not decode as what they claim to be (unknown account length, wrong
 * discriminator, a value out of the representable range). Never retryable: the same
 * bytes fail the same way.
 */
export class DecodeError extends GridlabError {
  readonly kind = 'decode';
  constructor(code: string, detail: string, options: GridlabErrorOptions = {}) {
    super(code, detail, options, false);
  }
}

/** No credentials, or credentials that are unknown or revoked (a dashboard session: none, or ended). */
export class AuthError extends GridlabError {
  readonly kind = 'unauthenticated';
  constructor(code: 'missing_api_key' | 'invalid_api_key' | 'session_required' | 'invalid_signature', detail: string) {
    super(code, detail, {}, false);
  }
}

/** The request may not be made from where it comes (a dashboard request from another origin). */
export class ForbiddenError extends GridlabError {
  readonly kind = 'forbidden';
  constructor(code: string, detail: string) {
    super(code, detail, {}, false);
  }
}

/** Valid credentials whose paid period has ended. */
export class PaymentRequiredError extends GridlabError {
  readonly kind = 'payment_required';
  constructor(detail: string) {
    super('subscription_expired', detail, {}, false);
  }
}

/** Too many requests; retry after `retryAfterSeconds` (at least 1). */
export class RateLimitedError extends GridlabError {
  readonly kind = 'rate_limited';
  declare readonly retryAfterSeconds: number;
  /** `code` names the limit or cap that was hit (`rate_limited`, `too_many_streams`, ...). */
  constructor(detail: string, retryAfterSeconds: number, code = 'rate_limited') {
    super(code, detail, { retryAfterSeconds }, true);
  }
}

/** The addressed thing existed but its time is over (an expired nonce). */
export class GoneError extends GridlabError {
  readonly kind = 'gone';
  constructor(code: string, detail: string, options: GridlabErrorOptions = {}) {
    super(code, detail, options, false);
  }
}

/** Well-formed input that fails a business check (a payment or a signature); `detail` says which. */
export class UnprocessableError extends GridlabError {
  readonly kind = 'unprocessable';
  constructor(code: string, detail: string, options: GridlabErrorOptions = {}) {
    super(code, detail, options, false);
  }
}

/** A command exceeded its deadline. */
export class TimeoutError extends GridlabError {
  readonly kind = 'timeout';
  constructor(detail: string, options: GridlabErrorOptions = {}) {
    super('timeout', detail, options, true);
  }
}

/** The HTTP status of each kind; `config` and `decode` are internal (500, never shown). */
export const HTTP_STATUS: Readonly<Record<ErrorKind, number>> = {
  input: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unprocessable: 422,
  rate_limited: 429,
  chain: 502,
  unavailable: 503,
  timeout: 504,
  config: 500,
  decode: 500,
};

/**
 * Rebuilds a business error from its wire form (kind, code, detail, retryable), as a
 * service's reply carries it across NATS; a kind this version does not know becomes
 * UnavailableError.
 */
export function errorFromWire(wire: {
  kind: string;
  code: string;
  detail: string;
  retryable: boolean;
  retryAfterSeconds?: number | undefined;
  errors?: readonly FieldError[] | undefined;
}): GridlabError {
  const options: GridlabErrorOptions = {
    retryable: wire.retryable,
    ...(wire.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: wire.retryAfterSeconds }),
    ...(wire.errors === undefined ? {} : { errors: wire.errors }),
  };
  switch (wire.kind) {
    case 'input':
      return new InputError(wire.detail, { ...options, code: wire.code });
    case 'not_found':
      return new NotFoundError(wire.code, wire.detail, options);
    case 'conflict':
      return new ConflictError(wire.code, wire.detail, options);
    case 'gone':
      return new GoneError(wire.code, wire.detail, options);
    case 'unprocessable':
      return new UnprocessableError(wire.code, wire.detail, options);
    case 'rate_limited':
      return new RateLimitedError(wire.detail, wire.retryAfterSeconds ?? 1, wire.code);
    case 'decode':
      // Another service's own bug: shown as a bare 500, never its text.
      return new DecodeError(wire.code, wire.detail, options);
    case 'chain':
      return new ChainError(wire.detail, options);
    case 'timeout':
      return new TimeoutError(wire.detail, options);
    case 'unauthenticated':
      return new AuthError(wire.code === 'missing_api_key' || wire.code === 'session_required' || wire.code === 'invalid_signature' ? wire.code : 'invalid_api_key', wire.detail);
    case 'forbidden':
      return new ForbiddenError(wire.code, wire.detail);
    default:
      return new UnavailableError(wire.detail, { ...options, code: wire.code });
  }
}

export function isGridlabError(error: unknown): error is GridlabError {
  return error instanceof GridlabError;
}
