import { SortedWindow } from '../engine/sorted-window';
import type { History } from './history';

/** SPEC 6 big_round: totalDeployed >= multiplier x the median of the previous `window` settled rounds, once `minHistory` of them exist. */
export interface BigRoundRule {
  readonly multiplier: number;
  readonly window: number;
  readonly minHistory: number;
}

/** The rule as SPEC 6 states it (the defaults of EVENT_BIG_ROUND_*). */
export const SPEC_BIG_ROUND_RULE: BigRoundRule = { multiplier: 2, window: 1000, minHistory: 100 };

/**
 * The one big_round decision, used by event-log's events and the Lab's
 * `rounds_since_big_round` filter: the totalDeployed (lamports) a round needs to be big,
 * given the previous settled rounds' count in the window and their median; null when the
 * round is not judged (too few previous rounds, or a zero median, which gives no
 * meaningful ratio). Voided rounds are never judged and never enter the window.
 */
export function bigRoundThreshold(rule: BigRoundRule, previousCount: number, median: number): number | null {
  if (previousCount < rule.minHistory || !(median > 0)) return null;
  return rule.multiplier * median;
}

class BigRoundTracker {
  flags = new Uint8Array(1024);
  done = 0;
  readonly window: SortedWindow;

  constructor(readonly rule: BigRoundRule) {
    this.window = new SortedWindow(rule.window);
  }

  extend(history: History): void {
    if (this.flags.length < history.length) {
      const next = new Uint8Array(Math.max(history.length, this.flags.length * 2));
      next.set(this.flags);
      this.flags = next;
    }
    const { winning, totalDeployed } = history;
    const { minHistory } = this.rule;
    for (let i = this.done; i < history.length; i++) {
      if (winning[i]! < 0) continue;
      const x = totalDeployed[i]!;
      if (this.window.size >= minHistory) {
        const threshold = bigRoundThreshold(this.rule, this.window.size, this.window.median());
        if (threshold !== null && x >= threshold) this.flags[i] = 1;
      }
      this.window.push(x);
    }
    this.done = history.length;
  }
}

// Derived once per History and extended as it grows: the flags do not depend on a DSL.
const trackers = new WeakMap<History, BigRoundTracker>();

/**
 * Per-index flags (1 = the round is a big_round under the history's `bigRoundRule`, over
 * non-voided rounds; voided rounds are never big), covering every round stored in `history`.
 */
export function bigRoundFlags(history: History): Uint8Array {
  let tracker = trackers.get(history);
  if (tracker === undefined || tracker.rule !== history.bigRoundRule) {
    tracker = new BigRoundTracker(history.bigRoundRule);
    trackers.set(history, tracker);
  }
  if (tracker.done < history.length) tracker.extend(history);
  return tracker.flags;
}

/**
 * A tag naming a rule other than SPEC 6's ('' for SPEC 6's), for keys of results that
 * depend on it (cached analytics), so a changed setting never serves results of another rule.
 */
export function bigRoundRuleTag(rule: BigRoundRule): string {
  const spec = SPEC_BIG_ROUND_RULE;
  if (rule.multiplier === spec.multiplier && rule.window === spec.window && rule.minHistory === spec.minHistory) return '';
  return `big-round-${rule.multiplier}-${rule.window}-${rule.minHistory}:`;
}
