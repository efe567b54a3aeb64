import { Type, literals } from '../kit';
import { eventPageSchema } from '../http';
import { EVENT_KINDS } from '../schemas';
import { operation, withDefault } from './operation';

// The event log (SPEC 6): polled, or followed as server-sent events.

const MAX_ID = Number.MAX_SAFE_INTEGER;
const kind = Type.Optional(literals(EVENT_KINDS, { description: 'Only events of this kind, and the `withdrawn` corrections of events of this kind' }));

export const eventsOperations = {
  listEvents: operation({
    method: 'get',
    path: '/api/v1/events',
    tags: ['events'],
    summary: "Event log, polling: events with id > since, ascending",
    description: "Events are never changed or removed. When rounds stored late (a history fill below rounds already derived) mean an earlier event no longer follows from the stored history, a `withdrawn` event naming its id is appended, followed by the event that holds instead, if any (SPEC 6). A reader that keeps the events it has seen drops the one a `withdrawn` names.",
    access: 'paid',
    cost: 1,
    parameters: {
      query: Type.Object({
        since: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'Cursor: only events with a greater id (default 0)' }), 0)),
        limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 100)),
        kind,
      }),
    },
    responses: { 200: { description: 'Events (ids increase in commit order and have no holes)', content: { 'application/json': eventPageSchema } } },
  }),
  streamEvents: operation({
    method: 'get',
    path: '/api/v1/events/stream',
    tags: ['events'],
    summary: "Event log, server-sent events",
    description: "Replays the last 50 events (of `kind`, when given), or every event after `since` / the `Last-Event-ID` header, then pushes new events as they are appended, with no gap and no duplicate across the boundary. Frames: `id: <event id>`, `event: <kind>`, `data: <LogEvent JSON>`; `: ping` every 15 s. A client too slow to keep up (1 MiB unsent) is disconnected and resumes with Last-Event-ID. Costs one rate-limit token at connect. Capped and ended like /stream (429 too_many_streams, too_many_streams_from_address; closed on revocation and expiry).",
    access: 'paid',
    cost: 1,
    parameters: {
      query: Type.Object({ since: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID })), kind }),
      // `since` wins over it; an empty header is no header.
      header: Type.Object({ 'Last-Event-ID': Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID })) }),
    },
    responses: { 200: { description: 'Event stream', content: { 'text/event-stream': Type.String() } } },
  }),
} as const;
