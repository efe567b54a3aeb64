import { SortedWindow } from '../engine/sorted-window';
import type { History } from './history';

/** SPEC 6 big_round: totalDeployed >= 2 x the median of the previous 1000 settled rounds... */
const MEDIAN_WINDOW = 1000;
/** ...and only once at least 100 of them exist. */
const MIN_PREVIOUS = 100;
const MULTIPLIER = 2;

class BigRoundTracker {
  flags = new Uint8Array(1024);
  done = 0;
  readonly window = new SortedWindow(MEDIAN_WINDOW);

  extend(history: History): void {
    if (this.flags.length < history.length) {
      const next = new Uint8Array(Math.max(history.length, this.flags.length * 2));
      next.set(this.flags);
      this.flags = next;
    }
    const { winning, totalDeployed } = history;
    for (let i = this.done; i < history.length; i++) {
      if (winning[i]! < 0) continue;
      const x = totalDeployed[i]!;
      if (this.window.size >= MIN_PREVIOUS && x >= MULTIPLIER * this.window.median()) this.flags[i] = 1;
      this.window.push(x);
    }
    this.done = history.length;
  }
}

// Derived once per History and extended as it grows: the flags do not depend on a DSL.
const trackers = new WeakMap<History, BigRoundTracker>();

/**
 * Per-index flags (1 = the round is a big_round as SPEC 6 defines it, over non-voided
 * rounds; voided rounds are never big), covering every round stored in `history`.
 */
export function bigRoundFlags(history: History): Uint8Array {
  let tracker = trackers.get(history);
  if (tracker === undefined) {
    tracker = new BigRoundTracker();
    trackers.set(history, tracker);
  }
  if (tracker.done < history.length) tracker.extend(history);
  return tracker.flags;
}
