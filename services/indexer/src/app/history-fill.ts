import type { Round } from '@gridlab/contracts';
import { fillHistory, type FillProgress, type FillStore, type RefusedRound, type TransactionHistory } from '@gridlab/history';
import type { Logger } from '@gridlab/logger';
import type { IndexerMetrics } from './metrics';

/** What a history fill reads and writes beyond the rounds: the floor and the refused rounds. */
export interface HistoryFillStore extends FillStore {
  setFloor(floor: number | null): Promise<void>;
  unrecoverable(latest?: number): Promise<{ byReason: Record<string, number>; latest: readonly RefusedRound[] }>;
}

export interface HistoryFillDeps {
  readonly history: TransactionHistory;
  readonly store: HistoryFillStore;
  /**
   * The newest stored round id (null: none yet). The fill stops there: rounds after it are
   * the live path's, which reads them from their accounts as they settle.
   */
  readonly newestStored: () => Promise<number | null>;
  /** Announces rounds the fill stored. */
  readonly publish: (round: Round) => Promise<void>;
  readonly metrics: IndexerMetrics;
  readonly logger: Logger;
  /** The lowest round id to rebuild. */
  readonly floor: number;
  readonly concurrency: number;
  /** How long to wait after a fill before looking for new gaps. */
  readonly recheckMs: number;
  readonly progressLogMs?: number;
}

/** What /readyz says of the history. */
export interface HistoryStatus {
  readonly state: 'waiting' | 'filling' | 'complete';
  readonly floor: number;
  readonly progress: FillProgress | null;
  /** Refused rounds by reason, each waiting for its retry. */
  readonly refused: Record<string, number>;
}

/**
 * The leader's history from transactions: every round from the floor up to the newest
 * stored one that is not stored (its account was closed before the indexer saw it) is
 * rebuilt from its transactions, oldest first, and the fill looks again for new gaps
 * every `recheckMs`. Progress is logged and kept for /readyz.
 */
export class HistoryFill {
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;
  private progress: FillProgress | null = null;
  private state: HistoryStatus['state'] = 'waiting';
  private refused: Record<string, number> = {};
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: HistoryFillDeps) {}

  async start(): Promise<void> {
    await this.deps.store.setFloor(this.deps.floor);
    await this.refreshRefused();
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    clearTimeout(this.timer);
    await this.running;
  }

  status(): HistoryStatus {
    return { state: this.state, floor: this.deps.floor, progress: this.progress, refused: this.refused };
  }

  /** The refused rounds as stored (a retry may have stored some, another refused them again). */
  private async refreshRefused(): Promise<void> {
    const refused = (await this.deps.store.unrecoverable()).byReason;
    this.deps.metrics.historyRefusedWaiting.reset();
    for (const [reason, n] of Object.entries(refused)) this.deps.metrics.historyRefusedWaiting.set({ reason }, n);
    this.refused = refused;
  }

  private async loop(): Promise<void> {
    const { logger, metrics } = this.deps;
    while (!this.abort.signal.aborted) {
      try {
        const upTo = await this.deps.newestStored();
        if (upTo !== null && upTo >= this.deps.floor) await this.fill(upTo);
        await this.refreshRefused();
      } catch (error) {
        // PostgreSQL down or the like: the next pass starts where this one stopped.
        metrics.storeErrors.inc();
        logger.warn('history fill failed; retrying', { err: error, retryInMs: this.deps.recheckMs });
      }
      if (this.abort.signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(this.timer);
          this.abort.signal.removeEventListener('abort', done);
          resolve();
        };
        this.timer = setTimeout(done, this.deps.recheckMs);
        this.abort.signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private async fill(upTo: number): Promise<void> {
    const { logger, metrics, store } = this.deps;
    const range = { fromId: this.deps.floor, toId: upTo };
    const missing = await store.missingCount(range.fromId, range.toId);
    metrics.historyRemaining.set(missing);
    if (missing === 0) {
      this.markComplete();
      return;
    }
    this.state = 'filling';
    logger.info('history fill started: rebuilding rounds from their transactions', { fromId: range.fromId, toId: range.toId, missing });
    let loggedAt = Date.now();
    const every = this.deps.progressLogMs ?? 10_000;
    const result = await fillHistory(range, this.deps.history, store, {
      concurrency: this.deps.concurrency,
      signal: this.abort.signal,
      onProgress: (p) => {
        this.progress = p;
        metrics.historyRemaining.set(Math.max(0, p.total - p.done));
        if (Date.now() - loggedAt < every) return;
        loggedAt = Date.now();
        logger.info('history fill', describe(p));
      },
      onStored: async (rounds) => {
        metrics.historyRounds.inc(rounds.length);
        metrics.lastStored.set(Date.now() / 1000);
        for (const round of rounds) await this.deps.publish(round);
      },
      onRefused: (r) => {
        metrics.historyRefused.inc({ reason: r.reason });
        // Absent ids are expected (a floor below the first round); the rest are worth a look.
        if (r.reason === 'absent') logger.info('round never existed on chain; passing over it (tried again later)', { roundId: r.id });
        else logger.error('round not rebuilt from its transactions; not stored, tried again later', { roundId: r.id, reason: r.reason, detail: r.detail });
      },
      onRetrying: (ids) => {
        metrics.historyRetried.inc(ids.length);
        logger.info('history fill: trying refused rounds again', { roundIds: ids.slice(0, 20), count: ids.length });
      },
      onRetry: (id, error, retryInMs) => {
        metrics.rpcErrors.inc();
        logger.warn('history fill: fetching a round failed; retrying', { roundId: id, err: error, retryInMs });
      },
    });
    this.progress = result;
    metrics.historyTransactions.inc(result.transactions);
    metrics.historyRecovered.inc(result.recovered);
    metrics.historyPartial.inc(result.partial);
    for (const [reason, n] of Object.entries(result.skipped)) metrics.historySkipped.inc({ reason }, n);
    if (!this.abort.signal.aborted) {
      logger.info('history fill done', describe(result));
      if (result.done >= result.total) this.markComplete();
    }
  }

  private markComplete(): void {
    if (this.state !== 'complete') this.deps.logger.info('history complete', { floor: this.deps.floor });
    this.state = 'complete';
    this.deps.metrics.historyRemaining.set(0);
  }
}

/** A progress line a person reads: how far, how fast, how long is left. */
function describe(p: FillProgress): Record<string, unknown> {
  return {
    done: p.done,
    total: p.total,
    percent: p.total === 0 ? 100 : Math.floor((100 * p.done) / p.total),
    stored: p.stored,
    partial: p.partial,
    refused: p.refused,
    retried: p.retried,
    recovered: p.recovered,
    lastId: p.lastId,
    roundsPerSecond: Math.round(p.roundsPerSecond * 10) / 10,
    transactionsPerSecond: Math.round(p.transactionsPerSecond),
    rpcCalls: p.calls,
    etaSeconds: p.etaSeconds === null ? null : Math.round(p.etaSeconds),
  };
}
