import { EVENT_KINDS, type EventKind } from '@gridlab/contracts';
import { InputError } from '@gridlab/errors';
import { intParam } from './query';

const MAX_ID = Number.MAX_SAFE_INTEGER;

/** `kind`: absent, or one of the six kinds (400 otherwise). */
function kindParam(value: unknown): EventKind | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(EVENT_KINDS as readonly string[]).includes(value)) {
    throw new InputError(`kind must be one of ${EVENT_KINDS.join(', ')}`, { errors: [{ path: '/query/kind', message: `must be one of ${EVENT_KINDS.join(', ')}` }] });
  }
  return value as EventKind;
}

/** GET /events: since (>= 0, default 0), limit (1..1000, default 100), kind. */
export function pollParams(query: Record<string, unknown>): { since: number; limit: number; kind: EventKind | undefined } {
  return {
    since: intParam(query['since'], 'since', 0, 0, MAX_ID)!,
    limit: intParam(query['limit'], 'limit', 100, 1, 1000)!,
    kind: kindParam(query['kind']),
  };
}

/**
 * GET /events/stream: `since` from the query, else the Last-Event-ID header (the same
 * rules), else null (replay the last 50); kind.
 */
export function streamParams(query: URLSearchParams, lastEventId: string | undefined): { since: number | null; kind: EventKind | undefined } {
  const one = (name: string): string | undefined => {
    const values = query.getAll(name);
    if (values.length > 1) throw new InputError(`${name} must be given once`, { errors: [{ path: `/query/${name}`, message: 'must be given once' }] });
    return values[0];
  };
  const since = one('since');
  const kind = kindParam(one('kind'));
  if (since !== undefined) return { since: intParam(since, 'since', 0, 0, MAX_ID)!, kind };
  if (lastEventId !== undefined && lastEventId !== '') {
    if (!/^\d{1,16}$/.test(lastEventId) || Number(lastEventId) > MAX_ID) {
      throw new InputError('Last-Event-ID must be an event id', { errors: [{ path: '/header/Last-Event-ID', message: 'must be a non-negative integer' }] });
    }
    return { since: Number(lastEventId), kind };
  }
  return { since: null, kind };
}
