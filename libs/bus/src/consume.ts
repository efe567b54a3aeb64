import { isGridlabError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

export interface DurableConsumerOptions {
  readonly stream: string;
  /** Durable name (`<service>_<purpose>`): progress survives restarts and is shared by replicas. */
  readonly durable: string;
  /** One subject of the stream to receive; absent: every subject of the stream. (One filter
   *  keeps this compatible with NATS servers before 2.10, which lack filter_subjects.) */
  readonly subject?: string;
  readonly logger: Logger;
  /** How long the server waits for an ack before redelivering. */
  readonly ackWaitMs?: number;
  /** Deliveries of one message before it is given up (terminated and logged as an error); default 10. */
  readonly maxDeliver?: number;
  /** Delay before a failed message is redelivered; default 2 s. */
  readonly retryDelayMs?: number;
  /** Told how each delivery ended and whether it was a redelivery (metrics: @gridlab/runtime's consumerMetrics). */
  readonly onDelivery?: (outcome: DeliveryOutcome, redelivered: boolean) => void;
}

/** How one delivery ended: acked, handed back for a later redelivery, or given up. */
export type DeliveryOutcome = 'ack' | 'nak' | 'term';

/** Deliveries of a failing message before it is terminated. */
const DEFAULT_MAX_DELIVER = 10;
/**
 * How long one pull request waits for messages. A consumer whose NATS server died resumes
 * after two missed heartbeats (every PULL_EXPIRES_MS / 2): 10 s here, where nats.js's
 * default (30 s) took 30 s; the price is one idle pull every 10 s per consumer.
 */
const PULL_EXPIRES_MS = 10_000;

/** A failure retrying cannot fix: a message that breaks its contract, a business error marked not retryable. */
function isPermanent(error: unknown): boolean {
  return isGridlabError(error) && !error.retryable;
}

/**
 * Consumes a JetStream stream through a durable consumer with explicit acks: each
 * message is acked after `handle` resolves, and redelivered if it throws (after a
 * back-off) or the process dies first — at most `maxDeliver` times. A permanent failure
 * (not retryable: a message that breaks its contract) is terminated at once, and so is a
 * message on its last delivery, each logged as an error: a poison message is never
 * redelivered forever. New durables start at new messages: consumers
 * catch up on history from PostgreSQL, the source of truth. Returns a stop function.
 */
export async function consumeDurable(
  nc: NatsConnection,
  options: DurableConsumerOptions,
  handle: (msg: JsMsg) => Promise<void>,
): Promise<() => Promise<void>> {
  const jsm = await jetstreamManager(nc);
  const maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
  const config = {
    durable_name: options.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
    ...(options.subject === undefined ? {} : { filter_subject: options.subject }),
    ack_wait: (options.ackWaitMs ?? 30_000) * 1_000_000,
    max_ack_pending: 1000,
    max_deliver: maxDeliver,
  };
  try {
    await jsm.consumers.info(options.stream, options.durable);
    await jsm.consumers.update(options.stream, options.durable, {
      ...(options.subject === undefined ? {} : { filter_subject: options.subject }),
      ack_wait: config.ack_wait,
      max_deliver: maxDeliver,
    });
  } catch {
    await jsm.consumers.add(options.stream, config);
  }
  const consumer = await jetstream(nc).consumers.get(options.stream, options.durable);
  // Each pull lasts PULL_EXPIRES_MS with a server heartbeat every half of it; two missed
  // heartbeats (a server that died, a lost pull) make the client pull again.
  const messages = await consumer.consume({ max_messages: 100, expires: PULL_EXPIRES_MS });
  const done = (async () => {
    for await (const msg of messages) {
      const redelivered = msg.info.deliveryCount > 1;
      try {
        await handle(msg);
        msg.ack();
        options.onDelivery?.('ack', redelivered);
      } catch (error) {
        const context = { durable: options.durable, subject: msg.subject, seq: msg.seq, deliveries: msg.info.deliveryCount, err: error };
        if (isPermanent(error) || msg.info.deliveryCount >= maxDeliver) {
          options.logger.error('message given up (permanent failure or last delivery); terminated', context);
          msg.term();
          options.onDelivery?.('term', redelivered);
        } else {
          options.logger.warn('message handling failed; redelivering later', context);
          msg.nak(options.retryDelayMs ?? 2000);
          options.onDelivery?.('nak', redelivered);
        }
      }
    }
  })();
  return async () => {
    await messages.close();
    await done;
  };
}
