import type { Logger } from '@gridlab/logger';
import type { HistoryListener, RoundSource } from './ports';
import { SharedHistory } from '../domain/shared-history';

/**
 * Keeps the in-memory history equal to the stored rounds. PostgreSQL is the source of
 * truth and the bus only a wake-up call: every catch-up reads the rounds after the
 * newest loaded id, so a lost message loses nothing. Rounds stored *before* the newest
 * loaded one (a backfill or an import of older history) cannot be appended to a history
 * whose ids must increase: the stored count then exceeds the loaded one, and the
 * history is rebuilt into new buffers while the old one keeps serving.
 */
export class HistorySync {
  private shared: SharedHistory | undefined;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly source: RoundSource,
    private readonly listener: HistoryListener,
    private readonly logger: Logger,
  ) {}

  get loaded(): boolean {
    return this.shared !== undefined;
  }

  /** The current history (after load()). */
  get current(): SharedHistory {
    if (this.shared === undefined) throw new Error('the history is not loaded yet');
    return this.shared;
  }

  /** Loads every stored round; returns how many and how long it took. */
  async load(): Promise<{ rounds: number; ms: number }> {
    const started = performance.now();
    await this.rebuild(1);
    return { rounds: this.current.length, ms: performance.now() - started };
  }

  /**
   * Reads what PostgreSQL holds beyond the history. Calls while one runs are folded into
   * one more pass after it, so a burst of wake-ups costs at most two passes.
   */
  catchUp(): Promise<void> {
    if (this.running !== null) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async pass(): Promise<void> {
    const shared = this.current;
    const totals = await this.source.totals();
    const lastId = shared.lastId;
    if (totals.lastId !== null && (lastId === null || totals.lastId > lastId)) {
      const added = await this.source.appendAfter(shared, lastId, totals.lastId);
      if (added > 0) this.listener.extended(shared.length, shared.lastId);
    }
    if (shared.length < totals.count) {
      this.logger.warn('rounds were stored before the newest loaded one; rebuilding the history', { loaded: shared.length, stored: totals.count });
      await this.rebuild(shared.generation + 1);
    }
  }

  private async rebuild(generation: number): Promise<void> {
    const totals = await this.source.totals();
    const next = new SharedHistory(1, generation);
    next.reserve(totals.count);
    if (totals.lastId !== null) await this.source.appendAfter(next, null, totals.lastId);
    next.onGrow = (buffers) => this.listener.buffers(buffers);
    if (this.shared !== undefined) this.shared.onGrow = () => undefined;
    this.shared = next;
    this.listener.buffers(next.buffersNow);
    this.listener.extended(next.length, next.lastId);
  }
}
