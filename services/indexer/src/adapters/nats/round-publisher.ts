import { type LiveSnapshot, type NatsNames, type Round, type RoundOpened } from '@gridlab/contracts';
import { encodeEvent, jetStreamOf, publishDurable, type JetStreamClient, type KV, type NatsConnection } from '@gridlab/bus';
import type { Logger } from '@gridlab/logger';
import type { RoundSink } from '../../app/ports';

/**
 * Everything the indexer tells the bus: live snapshots (core subject for speed, KV
 * bucket for the latest), and durable facts on the ROUNDS stream keyed by business id.
 */
export class RoundPublisher implements RoundSink {
  private readonly js: JetStreamClient;

  constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly names: NatsNames,
    private readonly logger: Logger,
  ) {
    this.js = jetStreamOf(nc);
  }

  /** Fire-and-forget on the hot path: a lost snapshot is superseded by the next one. */
  snapshot(snapshot: LiveSnapshot): void {
    const bytes = encodeEvent('liveUpdated', snapshot);
    this.nc.publish(this.names.subjects.liveUpdated, bytes);
    this.kv.put(this.names.liveKey, bytes).catch((error: unknown) => this.logger.warn('live bucket put failed', { err: error }));
  }

  /** Resolves once JetStream stored it (or recognised it as a duplicate). */
  async settled(round: Round): Promise<void> {
    await publishDurable(this.js, this.names.subjects.roundSettled, encodeEvent('roundSettled', round), String(round.id));
  }

  async opened(opened: RoundOpened): Promise<void> {
    await publishDurable(this.js, this.names.subjects.roundOpened, encodeEvent('roundOpened', opened), `opened-${opened.roundId}`);
  }
}
