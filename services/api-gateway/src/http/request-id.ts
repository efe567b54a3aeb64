import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ACCEPTED = /^[A-Za-z0-9._-]{8,64}$/;
/** Random per process, so ids from different replicas never collide. */
const PROCESS_TAG = randomBytes(6).toString('base64url');
let sequence = 0;

/**
 * The caller's X-Request-Id when well-formed (for end-to-end tracing), else a new one:
 * `req_` + this process' random tag + a counter. Unique without a random draw per
 * request (the hot path answers tens of thousands of requests a second).
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && ACCEPTED.test(given)) return given;
  sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
  return `req_${PROCESS_TAG}${sequence.toString(36)}`;
}
