/**
 * Keeping the log in agreement with the stored history when rounds are stored out of
 * order (a history fill below rounds already derived). The writer derives again from a
 * checkpoint at or below the late rounds; each re-derived batch is reconciled with the
 * live events of the log: what the derivation implies and the log lacks is appended,
 * and what the log holds that the derivation no longer implies is withdrawn by a
 * `withdrawn` event naming it (the log only ever grows). Pure.
 */
import { dedupKeys, type DerivedEvent, type RoundEventBody, type WithdrawnBody } from './events';

/** A live (not withdrawn) round event of the log. */
export interface LoggedRoundEvent {
  readonly id: number;
  readonly dedupKey: string;
  readonly ts: string;
  readonly body: RoundEventBody;
}

/** Round ids a batch derived: (after, upTo]; after null: from the first. */
export interface DerivedRange {
  readonly after: number | null;
  readonly upTo: number;
}

/** What to append for one re-derived batch, in order. */
export type Correction = DerivedEvent<RoundEventBody> | DerivedEvent<WithdrawnBody>;

/**
 * The appends that make the log's live round events of `range` equal `derived`.
 *
 * `derived`: the events of the rounds in `range`, as derived in id order from the first
 * stored round (or a checkpoint of that derivation). `logged`: the live log events of a
 * round in `range` and those sharing a dedup key with a derived event (a deployedSol
 * milestone moves to an earlier round when rounds below it arrive).
 *
 * A logged event is kept when a derived event has its key, ts and body; withdrawn
 * otherwise (its key is derived with another body, or it is of a round in the range and
 * not derived at all). Withdrawals come first, by ascending id, so the event that holds
 * instead (which may take the withdrawn one's key) follows them; then the derived events
 * the log lacks, in derivation order. Reconciling again with the result applied gives [].
 */
export function reconcile(derived: readonly DerivedEvent<RoundEventBody>[], logged: readonly LoggedRoundEvent[], range: DerivedRange): Correction[] {
  const wanted = new Map(derived.map((e) => [e.dedupKey, e]));
  const kept = new Set<string>();
  const withdraw: LoggedRoundEvent[] = [];
  for (const event of [...logged].sort((a, b) => a.id - b.id)) {
    const match = wanted.get(event.dedupKey);
    if (match !== undefined && !kept.has(event.dedupKey) && sameOccurrence(match, event)) kept.add(event.dedupKey);
    else if (match !== undefined || inRange(event.body.roundId, range)) withdraw.push(event);
  }
  return [...withdraw.map(withdrawal), ...derived.filter((e) => !kept.has(e.dedupKey))];
}

/** The correction that withdraws `event`; its ts is the withdrawn event's (the log's ts is chain time). */
function withdrawal(event: LoggedRoundEvent): DerivedEvent<WithdrawnBody> {
  return {
    dedupKey: dedupKeys.withdrawn(event.id),
    ts: event.ts,
    body: { kind: 'withdrawn', eventId: event.id, eventKind: event.body.kind, roundId: event.body.roundId },
  };
}

/**
 * The newest checkpoint the stored rounds still agree with: `checkpoints` ascending with
 * the rounds counted when each was taken, `stored[i]` how many rounds are stored now at or
 * below `checkpoints[i].roundId`. A larger count means a round arrived at or below that
 * checkpoint, and below every later one; null when even the first is overtaken (derive
 * again from the first round).
 */
export function latestIntactCheckpoint<C extends { readonly roundId: number; readonly roundCount: number }>(checkpoints: readonly C[], stored: readonly number[]): C | null {
  let intact: C | null = null;
  for (const [i, checkpoint] of checkpoints.entries()) {
    if (stored[i] !== checkpoint.roundCount) break;
    intact = checkpoint;
  }
  return intact;
}

function inRange(roundId: number, range: DerivedRange): boolean {
  return (range.after === null || roundId > range.after) && roundId <= range.upTo;
}

/** Same ts and same fields (compared by name: a body read back from jsonb has its keys reordered). */
function sameOccurrence(derived: DerivedEvent<RoundEventBody>, logged: LoggedRoundEvent): boolean {
  if (derived.ts !== logged.ts) return false;
  const a = derived.body as Readonly<Record<string, unknown>>;
  const b = logged.body as Readonly<Record<string, unknown>>;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.is(a[k], b[k]));
}
