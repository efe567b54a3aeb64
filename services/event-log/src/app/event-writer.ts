import type { LogEvent } from '@gridlab/contracts';
import { withTransaction, type Pool } from '@gridlab/db';
import { appendEvents, saveProgress, type EventRepository, type NewEvent } from '@gridlab/events-store';
import { ContiguousRounds, takeContiguous, type FillLookup, type RoundOutcome } from '@gridlab/rounds-store';
import type { Logger } from '@gridlab/logger';
import type { StoredFact } from '@gridlab/billing-store';
import { tierFactEvent } from '../domain/billing-facts';
import { createDeriver, parseDeriverState, type Deriver, type DeriverConfig } from '../domain/derive';
import { dedupKeys, type DerivedEvent } from '../domain/events';

/** Where settled rounds' outcomes are read, in id order (the indexer's table). */
export interface RoundsSource {
  getOutcomes(range: { fromId: number; limit: number }): Promise<RoundOutcome[]>;
}

/** Where billing's facts are read, in commit order. */
export interface FactsSource {
  after(seq: number, limit: number): Promise<StoredFact[]>;
}

export interface WriterOptions {
  readonly deriver: Partial<DeriverConfig>;
  /** How long a missing round id nobody is filling holds derivation back before it is skipped. */
  readonly gapWaitMs: number;
  /** The indexer's history fill: a missing id it is still filling holds derivation back until it is stored. */
  readonly fill?: FillLookup;
  readonly batchSize?: number;
  readonly now?: () => number;
}

/** Observers: appended events (publish after commit) and progress (metrics). */
export interface WriterEvents {
  appended(events: readonly LogEvent[]): void;
  progress(roundId: number, factSeq: number): void;
}

const toNew = (e: DerivedEvent): NewEvent => {
  const { kind, ...fields } = e.body;
  return { dedupKey: e.dedupKey, kind, ts: e.ts, fields };
};

/**
 * The one writer of the event log. PostgreSQL is the source: it derives events from the
 * stored rounds after its watermark and from billing's committed facts after its fact
 * cursor, and appends them together with the new watermark and derivation state in one
 * transaction. Bus messages only say "look now"; a lost message costs at most one
 * catch-up interval. Catch-ups never overlap, so ids follow commit order.
 */
export class EventWriter {
  private deriver!: Deriver;
  private factSeq = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly gaps: ContiguousRounds;
  private readonly batchSize: number;
  private readonly now: () => number;

  constructor(
    private readonly pool: Pool,
    private readonly log: EventRepository,
    private readonly rounds: RoundsSource,
    private readonly facts: FactsSource,
    private readonly events: WriterEvents,
    private readonly logger: Logger,
    private readonly options: WriterOptions,
  ) {
    this.batchSize = options.batchSize ?? 2000;
    this.now = options.now ?? Date.now;
    // The deriver counts only the rounds it sees, so it simply goes on after a hole.
    this.gaps = new ContiguousRounds(options.gapWaitMs, (ids) => logger.warn('round ids missing from the store; deriving past them', ids));
  }

  /** Restores the position and derivation state committed last. */
  async load(): Promise<void> {
    const progress = await this.log.progress();
    this.deriver = createDeriver(
      this.options.deriver,
      progress.deriverState === null || progress.deriverState === undefined ? undefined : parseDeriverState(progress.deriverState),
    );
    this.factSeq = progress.billingFactSeq;
  }

  /** Schedules a catch-up after any running one; resolves when it is done. */
  poke(): Promise<void> {
    this.chain = this.chain.then(
      () => this.catchUp(),
      () => this.catchUp(),
    );
    return this.chain;
  }

  private async catchUp(): Promise<void> {
    try {
      while (await this.roundBatch());
      while (await this.factBatch());
    } catch (error) {
      // The in-memory state may be ahead of what committed: start again from the database.
      this.logger.warn('event catch-up failed; reloading the committed state', { err: error });
      await this.load();
      throw error;
    }
  }

  /** Derives and appends one batch of rounds; false when there was nothing to do. */
  private async roundBatch(): Promise<boolean> {
    const last = this.deriver.lastRoundId;
    const fetched = await this.rounds.getOutcomes({ fromId: last === null ? 0 : last + 1, limit: this.batchSize });
    const batch = await takeContiguous(this.gaps, last, fetched, this.now(), this.options.fill);
    if (batch.length === 0) return false;
    const derived = batch.flatMap((round) => this.deriver.onRound(round));
    const state = this.deriver.snapshot();
    const appended = await withTransaction(this.pool, async (client) => {
      const added = await appendEvents(client, derived.map(toNew));
      await saveProgress(client, { roundId: state.lastRoundId ?? 0, deriverState: state });
      return added;
    });
    this.announce(appended);
    return true;
  }

  private async factBatch(): Promise<boolean> {
    const facts = await this.facts.after(this.factSeq, this.batchSize);
    if (facts.length === 0) return false;
    const derived: NewEvent[] = facts.map((f) =>
      f.kind === 'tier'
        ? toNew(tierFactEvent(f.fact))
        : {
            dedupKey: dedupKeys.subscription(f.fact.factId),
            kind: 'subscription',
            ts: f.fact.ts,
            fields: { action: f.fact.action, plan: f.fact.plan, activeSubs: f.fact.activeSubs },
          },
    );
    const seq = facts[facts.length - 1]!.seq;
    const appended = await withTransaction(this.pool, async (client) => {
      const added = await appendEvents(client, derived);
      await saveProgress(client, { billingFactSeq: seq });
      return added;
    });
    this.factSeq = seq;
    this.announce(appended);
    return true;
  }

  private announce(appended: readonly LogEvent[]): void {
    this.events.progress(this.deriver.lastRoundId ?? 0, this.factSeq);
    if (appended.length > 0) this.events.appended(appended);
  }
}
