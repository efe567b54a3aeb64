import type { ServerResponse } from 'node:http';
import type { Problem } from '@gridlab/contracts';
import { HTTP_STATUS, isGridlabError, type FieldError } from '@gridlab/errors';

/** RFC 9457 problem details, as every error response carries them. */
export type { Problem };


const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  402: 'Payment Required',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Seconds a client should wait before retrying a 503. */
const UNAVAILABLE_RETRY_AFTER = 5;

export function problem(status: number, code: string, detail: string, errors?: readonly FieldError[]): Problem {
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, code, detail, ...(errors === undefined ? {} : { errors: [...errors] }) };
}

/**
 * The one translation of errors to HTTP: business errors keep their code and detail;
 * anything else is a 500 that says nothing about internals.
 */
export function toProblem(error: unknown): { problem: Problem; headers: Record<string, string> } {
  if (databaseUnavailable(error)) {
    return { problem: problem(503, 'service_unavailable', 'the database is unavailable; retry shortly'), headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER) } };
  }
  if (!isGridlabError(error) || HTTP_STATUS[error.kind] === 500) {
    return { problem: problem(500, 'internal_error', 'the request could not be completed'), headers: {} };
  }
  const status = HTTP_STATUS[error.kind];
  const headers: Record<string, string> = {};
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  else if (status === 503) headers['Retry-After'] = String(UNAVAILABLE_RETRY_AFTER);
  return { problem: problem(status, error.code, error.message, error.errors), headers };
}

export function sendProblem(res: ServerResponse, p: Problem, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(p);
  res.writeHead(p.status, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03']);

/** PostgreSQL unreachable, restarting or shutting down (a 503 to retry, not a 500). */
function databaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error) || isGridlabError(error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  return /^(Connection terminated|timeout exceeded when trying to connect)/.test(error.message);
}
