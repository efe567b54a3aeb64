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

const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (REDACTED_FIELDS.has(key)) (info as Record<string, unknown>)[key] = '[redacted]';
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
      message: error.message,
      ...(code === undefined ? {} : { code }),
      ...(error.cause instanceof Error ? { cause: error.cause.message } : {}),
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
