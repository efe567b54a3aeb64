import { type LiveSnapshot, type MinerDeployed, type NatsNames, type Round, type RoundMiners, type RoundOpened } from '@gridlab/contracts';
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

  /**
   * A round's miners, in one message when they fit the server's max payload, else in
   * several (each with some of them, `count` its own), so a round of any size is published.
   */
  async miners(miners: RoundMiners): Promise<void> {
    const limit = (this.nc.info?.max_payload ?? 1024 * 1024) - 4096;
    const whole = encodeEvent('minersSettled', miners);
    if (whole.length <= limit) {
      await publishDurable(this.js, this.names.subjects.minersSettled, whole, `miners-${miners.roundId}`);
      return;
    }
    const parts = Math.ceil(whole.length / limit) + 1;
    const size = Math.ceil(miners.miners.length / parts);
    for (let from = 0; from < miners.miners.length; from += size) {
      const slice = miners.miners.slice(from, from + size);
      await publishDurable(this.js, this.names.subjects.minersSettled, encodeEvent('minersSettled', { roundId: miners.roundId, count: slice.length, miners: slice }), `miners-${miners.roundId}-${from}`);
    }
  }

  /** Fire and forget, like the snapshots: a deploy missed here is in the settled rows a minute later. */
  deployed(deploy: MinerDeployed): void {
    this.nc.publish(this.names.subjects.minerDeployed, encodeEvent('minerDeployed', deploy));
  }

  async opened(opened: RoundOpened): Promise<void> {
    await publishDurable(this.js, this.names.subjects.roundOpened, encodeEvent('roundOpened', opened), `opened-${opened.roundId}`);
  }
}
