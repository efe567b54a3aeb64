import type { EventPage } from '@gridlab/contracts';
import type { Handlers } from './handler';

/** The event log, polled (its stream is a raw operation: ./live.ts). */
export const eventsHandlers: Handlers<'listEvents'> = {
  listEvents: async ({ deps, params, res }) => {
    const { since, limit, kind } = params.query;
    const events = await deps.events.after(since, limit, kind);
    res.json({ count: events.length, lastId: events.length === 0 ? since : events[events.length - 1]!.id, events } satisfies EventPage);
  },
};
