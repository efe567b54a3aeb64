import type { LogEvent } from '@gridlab/contracts';
import type { NewEvent } from '@gridlab/events-store';
import type { Logger } from '@gridlab/logger';
import type { EventLog, FactsSource, RoundOutcomes, WriterEvents } from './ports';
import { tierFactEvent } from '../domain/billing-facts';
import { createDeriver, parseDeriverState, type Deriver, type DeriverConfig } from '../domain/derive';
import { dedupKeys, type DerivedEvent } from '../domain/events';

export interface WriterOptions {
  readonly deriver: Partial<DeriverConfig>;
  readonly batchSize?: number;
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
  private readonly batchSize: number;

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
    const batch = await this.rounds.after(this.deriver.lastRoundId, this.batchSize);
    if (batch.length === 0) return false;
    const derived = batch.flatMap((round) => this.deriver.onRound(round));
    const state = this.deriver.snapshot();
    this.announce(await this.log.append(derived.map(toNew), { roundId: state.lastRoundId ?? 0, deriverState: state }));
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
