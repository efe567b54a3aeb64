import type { LiveView, Round } from './types.ts';

/** What watchRounds() emits, from the snapshot stream. */
export type RoundWatchEvent =
  /** A round the watcher had not seen yet (the first one is the round current at connect). */
  | { readonly type: 'opened'; readonly roundId: number; readonly snapshot: LiveView }
  /** New figures (deployment, status, time left, staleness) for the current round. */
  | { readonly type: 'updated'; readonly roundId: number; readonly snapshot: LiveView }
  /** A round settled while watching: the stored Round, as /rounds/{id} serves it. */
  | { readonly type: 'settled'; readonly roundId: number; readonly round: Round };

export interface RoundWatchState {
  readonly roundId: number | null;
  /** The newest settled round known (not re-emitted). */
  readonly settledId: number | null;
}

export const INITIAL_WATCH_STATE: RoundWatchState = { roundId: null, settledId: null };

/** Round ids, both ends included. */
export interface RoundRange {
  readonly from: number;
  readonly to: number;
}

/**
 * The events one snapshot means after `state` (pure). A settled round is reported before
 * the round that follows it opens; the round settled before the watcher connected is not
 * reported. `missed` names the rounds that settled between the last one known and this
 * snapshot's without any snapshot showing them (the stream reconnected, or a slow client
 * was sent only the latest state): the caller reports them, from the history, before the
 * `settled` event of this snapshot.
 */
export function roundEvents(state: RoundWatchState, snapshot: LiveView): { state: RoundWatchState; events: RoundWatchEvent[]; missed: RoundRange | null } {
  const events: RoundWatchEvent[] = [];
  const prev = snapshot.prevRound;
  let settledId = state.settledId;
  let missed: RoundRange | null = null;
  if (prev !== null && prev !== undefined) {
    if (state.roundId !== null && (settledId === null || prev.id > settledId)) {
      if (settledId !== null && prev.id > settledId + 1) missed = { from: settledId + 1, to: prev.id - 1 };
      events.push({ type: 'settled', roundId: prev.id, round: prev });
    }
    if (settledId === null || prev.id > settledId) settledId = prev.id;
  }
  if (state.roundId === null || snapshot.roundId > state.roundId) {
    events.push({ type: 'opened', roundId: snapshot.roundId, snapshot });
    return { state: { roundId: snapshot.roundId, settledId }, events, missed };
  }
  if (snapshot.roundId === state.roundId) events.push({ type: 'updated', roundId: snapshot.roundId, snapshot });
  // An older round than the current one (a lagging replica after a reconnect) is ignored.
  return { state: { roundId: state.roundId, settledId }, events, missed };
}
