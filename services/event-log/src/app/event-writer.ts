import type { LogEvent } from '@gridlab/contracts';
import type { Checkpoint, NewEvent } from '@gridlab/events-store';
import type { Logger } from '@gridlab/logger';
import type { EventLog, FactsSource, RoundOutcomes, WriterEvents } from './ports';
import { tierFactEvent } from '../domain/billing-facts';
import { createDeriver, parseDeriverState, type Deriver, type DeriverConfig } from '../domain/derive';
import { dedupKeys, type DerivedEvent, type RoundEventBody } from '../domain/events';
import { latestIntactCheckpoint, reconcile, type LoggedRoundEvent } from '../domain/reconcile';

/** Rounds between two checkpoints of the deriver's state (a late round re-derives at most this many below it). */
const DEFAULT_CHECKPOINT_EVERY = 1000;

export interface WriterOptions {
  readonly deriver: Partial<DeriverConfig>;
  readonly batchSize?: number;
  /** A checkpoint of the deriver's state every this many rounds processed. */
  readonly checkpointEvery?: number;
}

const toNew = (e: DerivedEvent): NewEvent => {
  const { kind, ...fields } = e.body;
  return { dedupKey: e.dedupKey, kind, ts: e.ts, fields };
};

// The log holds only bodies it validated on append: a live round event's fields are its kind's.
const toLogged = (e: { id: number; dedupKey: string; kind: string; ts: string; fields: Readonly<Record<string, unknown>> }): LoggedRoundEvent => ({
  id: e.id,
  dedupKey: e.dedupKey,
  ts: e.ts,
  body: { kind: e.kind, ...e.fields } as RoundEventBody,
});

/**
 * The one writer of the event log. PostgreSQL is the source: it derives events from the
 * stored rounds after its watermark and from billing's committed facts after its fact
 * cursor, and appends them together with the new watermark and derivation state in one
 * transaction. Bus messages only say "look now"; a lost message costs at most one
 * catch-up interval. Catch-ups never overlap, so ids follow commit order.
 *
 * Rounds stored below the watermark (a history fill after the live rounds) are noticed
 * by count: more rounds stored at or below it than the deriver processed. The writer
 * then rewinds to the newest checkpoint the stored rounds still agree with and derives
 * forward again, reconciling each batch with the log (domain/reconcile.ts): the log ends
 * with exactly the events a rebuild from the stored rounds gives.
 */
export class EventWriter {
  private deriver!: Deriver;
  private factSeq = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly batchSize: number;
  private readonly checkpointEvery: number;
  /** Set by a rewind not committed yet: checkpoints above this round id are stale (-1: all). */
  private staleAbove: number | null = null;

  /** `rounds` may pass over missing ids: the deriver counts only the rounds it sees, so it simply goes on after a hole. */
  constructor(
    private readonly log: EventLog,
    private readonly rounds: RoundOutcomes,
    private readonly facts: FactsSource,
    private readonly events: WriterEvents,
    private readonly logger: Logger,
    private readonly options: WriterOptions,
  ) {
    this.batchSize = options.batchSize ?? 2000;
    this.checkpointEvery = options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
  }

  /** Restores the position and derivation state committed last. */
  async load(): Promise<void> {
    const progress = await this.log.progress();
    this.deriver = createDeriver(
      this.options.deriver,
      progress.deriverState === null || progress.deriverState === undefined ? undefined : parseDeriverState(progress.deriverState),
    );
    this.factSeq = progress.billingFactSeq;
    this.staleAbove = null;
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

  /**
   * Derives one batch of rounds and reconciles it with the log; false when there was
   * nothing to do. A rewind is committed even without rounds after it.
   */
  private async roundBatch(): Promise<boolean> {
    await this.rewindIfLate();
    const after = this.deriver.lastRoundId;
    const batch = await this.rounds.after(after, this.batchSize);
    if (batch.length === 0 && this.staleAbove === null) return false;
    const derived: DerivedEvent<RoundEventBody>[] = [];
    const save: Checkpoint[] = [];
    for (const round of batch) {
      derived.push(...this.deriver.onRound(round));
      const count = this.deriver.roundCount;
      if (count !== null && count % this.checkpointEvery === 0) save.push({ roundId: round.id, roundCount: count, state: this.deriver.snapshot() });
    }
    const upTo = this.deriver.lastRoundId;
    const changes =
      upTo === null || batch.length === 0
        ? []
        : reconcile(derived, (await this.log.liveRoundEvents({ after, upTo }, derived.map((e) => e.dedupKey))).map(toLogged), { after, upTo });
    const state = this.deriver.snapshot();
    const appended = await this.log.commitRounds(changes.map(toNew), { roundId: upTo ?? 0, deriverState: state }, { dropAbove: this.staleAbove, save });
    this.staleAbove = null;
    this.announce(appended);
    return batch.length > 0;
  }

  /**
   * When rounds were stored at or below the watermark since they were derived, rewinds
   * the deriver to the newest checkpoint below them (a fresh deriver when none is), so
   * the next batches derive them in order. A state saved before rounds were counted
   * rewinds to the first round once.
   */
  private async rewindIfLate(): Promise<void> {
    const last = this.deriver.lastRoundId;
    if (last === null) return;
    const counted = this.deriver.roundCount;
    if (counted !== null && (await this.rounds.countUpTo(last)) === counted) return;
    const checkpoints = counted === null ? [] : (await this.log.checkpoints()).filter((c) => c.roundId <= last);
    const target = latestIntactCheckpoint(checkpoints, await this.rounds.countsUpTo(checkpoints.map((c) => c.roundId)));
    const state = target === null ? undefined : parseDeriverState(await this.log.checkpointState(target.roundId));
    this.deriver = createDeriver(this.options.deriver, state);
    this.staleAbove = target?.roundId ?? -1;
    this.logger.info('rounds stored below the watermark: deriving again', { watermark: last, from: target?.roundId ?? null });
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
    const appended = await this.log.append(derived, { billingFactSeq: seq });
    this.factSeq = seq;
    this.announce(appended);
    return true;
  }

  private announce(appended: readonly LogEvent[]): void {
    this.events.progress(this.deriver.lastRoundId ?? 0, this.factSeq);
    if (appended.length > 0) this.events.appended(appended);
  }
}
