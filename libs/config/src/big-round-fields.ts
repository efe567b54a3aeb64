import { int, num } from './fields';

/**
 * The big_round rule's settings (SPEC 6), read by every service that applies the rule:
 * event-log (big_round events) and the Strategy Lab (the `rounds_since_big_round`
 * filter), so one setting changes both. The rule itself is `bigRoundThreshold` of
 * @gridlab/strategy.
 */
export function bigRoundFields() {
  return {
    EVENT_BIG_ROUND_MULTIPLIER: num({ default: 2, min: 1, max: 1000, doc: 'big_round: totalDeployed >= this x the median (event log and Lab filter)' }),
    EVENT_BIG_ROUND_WINDOW: int({ default: 1000, min: 1, max: 1_000_000, doc: 'big_round: previous settled rounds whose median is taken' }),
    EVENT_BIG_ROUND_MIN_HISTORY: int({ default: 100, min: 1, max: 1_000_000, doc: 'big_round: fewest rounds in the window for a round to be judged' }),
  };
}
