import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ACCEPTED = /^[A-Za-z0-9._-]{8,64}$/;

/** The caller's X-Request-Id when well-formed (for end-to-end tracing), else a new one. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && ACCEPTED.test(given) ? given : `req_${randomBytes(9).toString('base64url')}`;
}
