import type { AttemptOutcome, Claimed, Recorded, StoredFiring } from '@gridlab/alerts-store';
import type { Logger } from '@gridlab/logger';
import { signDelivery } from '@gridlab/webhooks';
import { renderBody } from '../domain/formats';
import type { AlertPayload } from '../domain/alerts';
import { DISABLE_AFTER_MS, nextAttemptAt } from '../domain/schedule';

/** One POST of a body with its headers; never throws (a failure is an outcome). */
export type Transport = (url: string, body: string, headers: Readonly<Record<string, string>>) => Promise<AttemptOutcome>;

/** The delivery queue as the dispatcher uses it (PostgreSQL in production). */
export interface QueuePort {
  claim(limit: number, leaseMs: number): Promise<Claimed[]>;
  record(claimed: Pick<Claimed, 'firingId' | 'attempt'>, outcome: AttemptOutcome, retryInMs: number | null, disableAfterMs: number): Promise<Recorded>;
}

export interface DispatcherEvents {
  /** An attempt ended: delivered or not, and how long after the firing. */
  attempted(claimed: Claimed, outcome: AttemptOutcome, sinceFiringMs: number): void;
  /** A rule's endpoint failed for the whole window: the rule is disabled now, and `notice` was stored among its firings. */
  disabled(ruleId: string, notice: StoredFiring | null): void;
}

export interface DispatcherOptions {
  /** Deliveries taken from the queue at once (and in flight at most). */
  readonly batch: number;
  /** How long a taken delivery is this replica's: past an attempt's deadline, with room to record it. */
  readonly leaseMs: number;
  /** How often the queue is looked at when nothing woke the dispatcher (retries come due, another replica's firings). */
  readonly pollMs: number;
  readonly now: () => Date;
  /** A draw in [0, 1] that spreads the retries of firings that failed together. */
  readonly random: () => number;
  /**
   * The retry schedule and the disabling window run this many times faster (default 1):
   * drills and tests play a day of failures in minutes.
   */
  readonly timeScale?: number;
}

/**
 * Delivers what the queue holds: takes due deliveries (its replica's share: the queue
 * hands each to one replica at a time), signs each body with the rule's live secrets
 * under the firing's webhook id, posts them side by side, and records each outcome with
 * when to try again (the schedule runs from the firing; past its end the firing expires).
 * Woken at once when this replica fires; otherwise it looks every `pollMs`.
 */
export class Dispatcher {
  private running: Promise<void> | null = null;
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private woken = false;

  constructor(
    private readonly queue: QueuePort,
    private readonly transport: Transport,
    private readonly events: DispatcherEvents,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops taking deliveries; resolves once the attempts under way are recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
  }

  /** Something was queued: look now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Takes and delivers one batch, waiting for every outcome to be recorded; how many deliveries it took. */
  async drainOnce(): Promise<number> {
    const claimed = await this.queue.claim(this.options.batch, this.options.leaseMs);
    await Promise.all(claimed.map((c) => this.attempt(c)));
    return claimed.length;
  }

  /**
   * Keeps up to `batch` deliveries in flight: takes as many as there is room for whenever
   * one ends or something is queued, so a burst larger than a batch does not wait for the
   * slowest receiver of the batch before it.
   */
  private async loop(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    while (!this.stopped) {
      this.woken = false;
      const room = this.options.batch - inFlight.size;
      let taken = 0;
      if (room > 0) {
        try {
          const claimed = await this.queue.claim(room, this.options.leaseMs);
          taken = claimed.length;
          for (const c of claimed) {
            const running: Promise<void> = this.attempt(c)
              .catch((error: unknown) => {
                this.logger.error('delivery attempt failed', { err: error, ruleId: c.ruleId, webhookId: c.webhookId });
              })
              .finally(() => {
                inFlight.delete(running);
                this.wake();
              });
            inFlight.add(running);
          }
        } catch (error) {
          // PostgreSQL away: what was taken comes back when its lease ends; look again later.
          this.logger.warn('delivery queue unavailable; retrying', { err: error, retryInMs: this.options.pollMs });
        }
      }
      // Full, or the queue had less than there was room for: wait for an attempt to end, a wake-up or the poll.
      if ((room <= 0 || taken < room) && !this.woken && !this.stopped) await this.pause();
    }
    await Promise.all(inFlight);
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, this.options.pollMs);
      this.wakeUp = done;
    });
  }

  private async attempt(claimed: Claimed): Promise<void> {
    const body = renderBody(claimed.format, claimed.payload as AlertPayload, claimed.ruleName);
    const outcome =
      claimed.secrets.length === 0
        ? { status: null, delivered: false, latencyMs: 0, excerpt: '', error: 'the rule has no live signing secret' }
        : await this.transport(claimed.url, body, { ...signDelivery(claimed.secrets, claimed.webhookId, this.options.now(), body), 'content-type': 'application/json' });
    const now = this.options.now();
    const scale = this.options.timeScale ?? 1;
    const next = outcome.delivered ? null : nextAttemptAt(claimed.firedAt, claimed.attempt, this.options.random());
    const fired = claimed.firedAt.getTime();
    const retryInMs = next === null ? null : Math.max(0, fired + (next.getTime() - fired) / scale - now.getTime());
    try {
      const recorded = await this.queue.record(claimed, outcome, retryInMs, DISABLE_AFTER_MS / scale);
      if (recorded.disabled) this.events.disabled(claimed.ruleId, recorded.notice);
    } catch (error) {
      // Not recorded: the lease ends and the delivery is tried again under the same webhook id.
      this.logger.warn('delivery outcome not recorded; it will be attempted again', { err: error, ruleId: claimed.ruleId, webhookId: claimed.webhookId });
    }
    this.events.attempted(claimed, outcome, now.getTime() - claimed.firedAt.getTime());
  }
}
