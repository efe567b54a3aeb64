import type { IncomingMessage, ServerResponse } from 'node:http';
import { UnavailableError } from '@gridlab/errors';
import { RateLimitedWithDecision, type Caller } from '../app/access';
import type { InFlight } from '../domain/in-flight';
import type { StreamOwner, StreamRegistry } from '../domain/stream-registry';
import { sessionOf } from './dashboard';

// The concurrency caps: streams, NDJSON dumps and Strategy Lab jobs, per key and per address.

/** Retry-After of a concurrency cap: a slot frees when another stream or job ends. */
const CAP_RETRY_AFTER_S = 5;

/** A 429 for a concurrency cap, with `code` naming it and RateLimit-* describing it. */
function capExceeded(code: string, limit: number, detail: string): RateLimitedWithDecision {
  return new RateLimitedWithDecision({ allowed: false, limit, remaining: 0, resetSeconds: CAP_RETRY_AFTER_S, retryAfterSeconds: CAP_RETRY_AFTER_S }, detail, code);
}

/** Who holds a stream open: the key, the address, and the dashboard session, if any (the stream ends with it). */
function streamOwner(caller: Caller, req: IncomingMessage): StreamOwner {
  const session = sessionOf(req);
  return {
    key: caller.keyHash.toString('hex'),
    address: caller.address,
    paidUntilMs: caller.paidUntilMs,
    ...(session === undefined ? {} : { session: { subscriberId: session.subscriberId, epoch: session.epoch, expiresAtMs: session.expiresAtMs } }),
  };
}

/**
 * Registers an authorized stream under the caps (429 too_many_streams per key,
 * too_many_streams_from_address per address); the stream is closed when its key is
 * revoked or expires or its dashboard session ends, and its slot freed when the response closes.
 */
export function admitStream(streams: StreamRegistry, caller: Caller, req: IncomingMessage, res: ServerResponse): void {
  const lease = streams.open(streamOwner(caller, req), () => {
    res.end();
    res.destroy();
  });
  if ('refused' in lease) {
    throw lease.refused.cap === 'key'
      ? capExceeded('too_many_streams', lease.refused.limit, `at most ${lease.refused.limit} concurrent streams per API key`)
      : capExceeded('too_many_streams_from_address', lease.refused.limit, `at most ${lease.refused.limit} concurrent streams per client address`);
  }
  res.on('close', lease.release);
}

/** Registers an NDJSON dump under its caps (429 too_many_dumps per key or address, 503 when every slot of the replica is busy). */
export function admitDump(registry: StreamRegistry, maxConcurrent: number, caller: Caller, req: IncomingMessage, res: ServerResponse): void {
  const lease = registry.open(streamOwner(caller, req), () => res.destroy());
  if ('refused' in lease) {
    const { cap, limit } = lease.refused;
    throw capExceeded(cap === 'key' ? 'too_many_dumps' : 'too_many_dumps_from_address', limit, `at most ${limit} concurrent NDJSON dumps per ${cap === 'key' ? 'API key' : 'client address'}`);
  }
  if (registry.size > maxConcurrent) {
    lease.release();
    throw new UnavailableError('every NDJSON dump slot of this replica is busy; retry shortly', { code: 'dumps_busy', retryAfterSeconds: 5 });
  }
  res.on('close', lease.release);
}

/** Runs a lab request in one of the key's in-flight slots, or refuses it with 429 too_many_lab_jobs. */
export async function withLabSlot<T>(jobs: InFlight, caller: Caller, run: () => Promise<T>): Promise<T> {
  const release = jobs.acquire(caller.keyHash.toString('hex'));
  if (release === null) throw capExceeded('too_many_lab_jobs', jobs.limit, `at most ${jobs.limit} Strategy Lab requests in flight per API key`);
  try {
    return await run();
  } finally {
    release();
  }
}
