import winston from 'winston';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type Logger = winston.Logger;

interface LoggerOptions {
  readonly service: string;
  readonly level?: LogLevel;
  /** Tests pass `true` to keep jest output clean; lines still go through formatting. */
  readonly silent?: boolean;
}

/**
 * Fields that must never reach a log line whatever a caller passes: API keys,
 * signatures, secrets. Values under these names are replaced, not dropped, so the
 * line still shows that something was there.
 */
const REDACTED_FIELDS = new Set(['apiKey', 'authorization', 'signature', 'signatureBase64', 'secret', 'password']);

/**
 * Any `scheme://authority...`, not only http(s) and ws(s): database, Redis and NATS URLs
 * carry passwords in their user info (`postgres://user:pass@host/db`).
 */
const URL_RE = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#'"]+)([^\s'"]*)/gi;

/** How deep objects in a log line are searched; anything below is replaced (cycles end here too). */
const MAX_DEPTH = 6;

/**
 * URLs in log text keep their scheme, host and port only: user info, path and query are
 * replaced, since RPC provider URLs carry API keys in any of them
 * (`https://user:pass@host`, `https://host/<token>`, `https://host/?api-key=…`).
 */
export function redactUrls(text: string): string {
  return text.replace(URL_RE, (_match, scheme: string, authority: string, rest: string) => {
    const host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
    const hidden = authority.includes('@') || (rest !== '' && rest !== '/');
    return `${scheme}${host}${hidden ? '/[redacted]' : rest}`;
  });
}

/**
 * `value` as it may be written: strings with their URLs redacted, secret-named fields
 * replaced, errors as `{ name, message, code?, cause? }` (no stack), at any depth. Plain
 * objects and arrays are copied, never changed: they may be the caller's.
 */
function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactUrls(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (value instanceof Error) return errorView(value, depth);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  return redactFields(value as Record<string, unknown>, depth);
}

function redactFields(fields: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(fields)) out[key] = REDACTED_FIELDS.has(key) ? '[redacted]' : redactValue(v, depth + 1);
  return out;
}

/** An error on the wire: name, message, code and the cause's message; no stack, no other fields. */
function errorView(error: Error, depth: number): Record<string, unknown> {
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: redactUrls(error.message),
    ...(code === undefined ? {} : { code: redactValue(code, depth + 1) }),
    ...(error.cause instanceof Error ? { cause: redactUrls(error.cause.message) } : {}),
  };
}

/** Every field of every line, whatever its name or depth: no future log line can leak a credential. */
const redact = winston.format((info) => {
  const fields = info as Record<string, unknown>;
  for (const key of Object.keys(info)) fields[key] = REDACTED_FIELDS.has(key) ? '[redacted]' : redactValue(fields[key], 0);
  return info;
});

export function createLogger(options: LoggerOptions): Logger {
  return winston.createLogger({
    level: options.level ?? 'info',
    silent: options.silent ?? false,
    defaultMeta: { service: options.service },
    format: winston.format.combine(redact(), winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}
