import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * The stream sequence up to which a durable consumer has acknowledged every message (its
 * ack floor): a positive sign that the service behind it handled a message, for tests that
 * must show something did not happen without sleeping.
 */
export async function ackedThrough(nc: NatsConnection, stream: string, durable: string): Promise<number> {
  const info = await (await jetstreamManager(nc)).consumers.info(stream, durable);
  return info.ack_floor.stream_seq;
}
