import { jetStreamOf, publishDurable, encodeEvent, type NatsConnection } from '@gridlab/bus';
import { type NatsNames } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import type { OutboxFact } from '../app/ports';
import type { BillingRepository } from './billing-repository';

/**
 * Publishes outbox facts to JetStream (Nats-Msg-Id = factId) and marks them published.
 * A fact that cannot be published now stays in the outbox for the relay's next pass;
 * JetStream's duplicate window and the consumers' dedup keys absorb re-publishing.
 */
export class FactPublisher {
  private readonly js;

  constructor(
    nc: NatsConnection,
    private readonly names: NatsNames,
    private readonly repo: BillingRepository,
    private readonly logger: Logger,
  ) {
    this.js = jetStreamOf(nc);
  }

  /** Publishes in order until one fails; returns how many were published. */
  async publish(facts: readonly OutboxFact[]): Promise<number> {
    const done: number[] = [];
    for (const fact of facts) {
      try {
        if (fact.kind === 'subscription') {
          await publishDurable(this.js, this.names.subjects.subscriptionChanged, encodeEvent('subscriptionChanged', fact.payload), fact.payload.factId);
        } else {
          await publishDurable(this.js, this.names.subjects.tierChanged, encodeEvent('tierChanged', fact.payload), fact.payload.factId);
        }
        done.push(fact.seq);
      } catch (error) {
        this.logger.warn('fact not published yet; the relay retries', { factId: fact.payload.factId, err: error });
        break; // keep order: later facts wait for this one
      }
    }
    await this.repo.markPublished(done, new Date());
    return done.length;
  }

  /** One relay pass over what is still unpublished, oldest first; returns what remains (of at most 500 read). */
  async relay(): Promise<number> {
    const pending = await this.repo.unpublishedFacts(500);
    if (pending.length === 0) return 0;
    return pending.length - (await this.publish(pending));
  }
}
