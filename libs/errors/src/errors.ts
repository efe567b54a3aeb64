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
  | 'payment_required'
  | 'rate_limited'
  | 'timeout';

/** One problem with one field of an input document, addressed by JSON pointer. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

interface GridlabErrorOptions {
  readonly cause?: unknown;
  readonly retryable?: boolean;
  readonly errors?: readonly FieldError[];
}

/** Base of every business error: a stable machine code and a human detail. */
export abstract class GridlabError extends Error {
  abstract readonly kind: ErrorKind;
  readonly code: string;
  readonly retryable: boolean;
  readonly errors: readonly FieldError[] | undefined;

  protected constructor(code: string, detail: string, options: GridlabErrorOptions, retryable: boolean) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? retryable;
    this.errors = options.errors;
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

/** No credentials, or credentials that are unknown or revoked. */
export class AuthError extends GridlabError {
  readonly kind = 'unauthenticated';
  constructor(code: 'missing_api_key' | 'invalid_api_key', detail: string) {
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
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', detail, {}, true);
  }
}

/** A command exceeded its deadline. */
export class TimeoutError extends GridlabError {
  readonly kind = 'timeout';
  constructor(detail: string, options: GridlabErrorOptions = {}) {
    super('timeout', detail, options, true);
  }
}

export function isGridlabError(error: unknown): error is GridlabError {
  return error instanceof GridlabError;
}
