import type { EventKind, LogEvent } from '@gridlab/client';
import { useEffect, useState } from 'preact/hooks';
import { api, describe } from '../api';
import { Loading } from '../components/Status';
import { int, ore, sol, when } from '../format';

const KINDS: readonly EventKind[] = ['drought_broken', 'big_round', 'streak', 'motherlode', 'milestone', 'tier', 'subscription'];
const LABELS: Record<EventKind, string> = {
  drought_broken: 'Drought broken',
  big_round: 'Big round',
  streak: 'Streak',
  motherlode: 'Motherlode',
  milestone: 'Milestone',
  tier: 'Price tier',
  subscription: 'Subscription',
  withdrawn: 'Withdrawn',
};
const MAX_SHOWN = 200;

function summary(e: LogEvent): string {
  switch (e.kind) {
    case 'drought_broken':
      return `Square #${e.grid} won after ${int(e.drought)} rounds without (round ${e.roundId})`;
    case 'big_round':
      return `Round ${e.roundId}: ${e.deployedSol.toFixed(2)} SOL deployed, ${e.multiplier.toFixed(1)}× the usual (threshold ${e.thresholdSol.toFixed(2)} SOL); square #${e.winningSquare} won`;
    case 'streak':
      return `Square #${e.grid} won ${e.length} rounds in a row (to round ${e.roundId})`;
    case 'motherlode':
      return `Round ${e.roundId} hit the motherlode: ${ore(e.oreAmount)} ORE shared on square #${e.winningSquare}`;
    case 'milestone':
      return e.metric === 'rounds' ? `${int(e.value)} rounds indexed (round ${e.roundId})` : `${sol(e.value * 1e9, 0)} deployed in all (round ${e.roundId})`;
    case 'tier':
      return `Price ${e.direction === 'up' ? 'rose' : 'fell'} to ${e.tokenNow} tokens at ${int(e.activeSubs)} subscribers`;
    case 'subscription':
      return `A ${e.plan} subscription was ${e.action} (${int(e.activeSubs)} active)`;
    case 'withdrawn':
      return `Withdrawn: the ${LABELS[e.eventKind].toLowerCase()} event of round ${e.roundId} no longer follows from the history stored since`;
  }
}

export function EventsPage() {
  const [shown, setShown] = useState<ReadonlySet<EventKind>>(new Set(KINDS));
  const [events, setEvents] = useState<LogEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    setEvents([]);
    void (async () => {
      try {
        // The last 50 events first, then each as it is appended; resumes by id after a drop.
        for await (const event of api.eventStream({ signal: abort.signal, onReconnect: () => setError('reconnecting to the event stream…') })) {
          setError(null);
          setEvents((list) => [event, ...(list ?? [])].slice(0, MAX_SHOWN));
        }
      } catch (e) {
        if (!abort.signal.aborted) setError(describe(e));
      }
    })();
    return () => abort.abort();
  }, []);
  const toggle = (kind: EventKind) => {
    const next = new Set(shown);
    if (next.has(kind)) next.delete(kind);
    else next.add(kind);
    setShown(next);
  };
  // A correction shows with the kind it corrects; the event it withdraws is struck through.
  const withdrawn = new Set((events ?? []).flatMap((e) => (e.kind === 'withdrawn' ? [e.eventId] : [])));
  const visible = (events ?? []).filter((e) => shown.has(e.kind === 'withdrawn' ? e.eventKind : e.kind));
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <fieldset class="filters">
        <legend>Show</legend>
        {KINDS.map((kind) => (
          <label key={kind} class="check">
            <input type="checkbox" checked={shown.has(kind)} onChange={() => toggle(kind)} /> {LABELS[kind]}
          </label>
        ))}
      </fieldset>
      {error !== null && (
        <p class="warning" role="status">
          {error}
        </p>
      )}
      {events === null ? (
        <Loading what="events" />
      ) : visible.length === 0 ? (
        <p class="muted">No event of the selected kinds yet; new ones appear here as they happen.</p>
      ) : (
        <ol class="feed" data-testid="event-feed" aria-live="polite">
          {visible.map((e) => (
            <li key={e.id} data-kind={e.kind}>
              <span class={`badge badge-${e.kind}`}>{LABELS[e.kind]}</span> {withdrawn.has(e.id) ? <s>{summary(e)}</s> : <span>{summary(e)}</span>}{' '}
              <time class="muted" dateTime={e.ts}>
                {when(e.ts)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
