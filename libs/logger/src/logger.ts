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

const URL_RE = /\b((?:https?|wss?):\/\/)([^\s/?#'"]+)([^\s'"]*)/gi;

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

const redact = winston.format((info) => {
  const fields = info as Record<string, unknown>;
  for (const key of Object.keys(info)) {
    if (REDACTED_FIELDS.has(key)) fields[key] = '[redacted]';
    else if (typeof fields[key] === 'string') fields[key] = redactUrls(fields[key]);
  }
  return info;
});

/** Errors become `{ error: { name, message, code } }`: no stack on the wire by default. */
const errorFields = winston.format((info) => {
  const error = (info as Record<string, unknown>)['err'];
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    (info as Record<string, unknown>)['err'] = {
      name: error.name,
      message: redactUrls(error.message),
      ...(code === undefined ? {} : { code }),
      ...(error.cause instanceof Error ? { cause: redactUrls(error.cause.message) } : {}),
    };
  }
  return info;
});

export function createLogger(options: LoggerOptions): Logger {
  return winston.createLogger({
    level: options.level ?? 'info',
    silent: options.silent ?? false,
    defaultMeta: { service: options.service },
    format: winston.format.combine(redact(), errorFields(), winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}
