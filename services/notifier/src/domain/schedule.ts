/**
 * When a firing's delivery is tried again, and when an endpoint is given up on. Every
 * attempt of one firing carries the same webhook-id, so a receiver that got an earlier
 * attempt after all drops the repeat: delivery is at least once.
 *
 * The schedule is anchored on the first attempt, not on when the last one ended, so a
 * slow receiver does not push later attempts back; an attempt whose time has passed
 * (the notifier was down) is made at once.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delays between attempts: after the first try, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then 2 h each. */
const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR];
const LATER_DELAY_MS = 2 * HOUR;
/** No attempt is made later than this after the first. */
export const RETRY_WINDOW_MS = 24 * HOUR;
/**
 * An endpoint whose deliveries have all failed for this long is disabled: by then every
 * firing it missed has had its whole schedule, so disabling it loses nothing a retry would
 * still have delivered. The queue decides it by the database's clock (replicas' clocks
 * need not agree); its owner enables the rule again.
 */
export const DISABLE_AFTER_MS = 24 * HOUR;
/**
 * Jitter stretches the last delay by up to this fraction, so the many firings of one round
 * that failed together do not all come back in the same second. Below the 1/0.2 ratio of
 * any two consecutive delays, so attempts stay in order whatever jitters are drawn.
 */
const JITTER_SPREAD = 0.2;

function delay(n: number): number {
  return RETRY_DELAYS_MS[n] ?? LATER_DELAY_MS;
}

/** Milliseconds from the first attempt to attempt `attempts + 1` before jitter (the sum of the first `attempts` delays). */
function nominalOffset(attempts: number): number {
  let sum = 0;
  for (let n = 0; n < attempts; n++) sum += delay(n);
  return sum;
}

/**
 * When to make the next attempt after `attempts` failed ones (1 after the first), the
 * first made at `firstAt`; null when it would fall past the 24 h window: the firing is
 * then dropped. `jitter` is a draw in [0, 1] from the caller's random source; it delays
 * the attempt by up to a fifth of its delay, and never past the window, so how many
 * attempts a firing gets (18) does not depend on the draws.
 */
export function nextAttemptAt(firstAt: Date, attempts: number, jitter: number): Date | null {
  if (!Number.isInteger(attempts) || attempts < 1) throw new RangeError('attempts counts the attempts made: an integer >= 1');
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError('jitter is a number in [0, 1]');
  const nominal = nominalOffset(attempts);
  if (nominal > RETRY_WINDOW_MS) return null;
  const jittered = nominal + delay(attempts - 1) * JITTER_SPREAD * jitter;
  return new Date(firstAt.getTime() + Math.min(jittered, RETRY_WINDOW_MS));
}
