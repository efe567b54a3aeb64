import { CORRELATION_HEADER, eventValidator, type EventName, type EventPayload, type Validator } from '@gridlab/contracts';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** JSON bytes of a message, validated against its contract first. */
export function encodeMessage<T>(validate: Validator<T>, payload: T): Uint8Array {
  return encoder.encode(JSON.stringify(validate(payload)));
}

/** The message of received bytes, validated against its contract. */
export function decodeMessage<T>(validate: Validator<T>, data: Uint8Array): T {
  return validate(JSON.parse(decoder.decode(data)) as unknown);
}

/** JSON bytes of what the declared subject `name` carries, checked against the NATS table first. */
export function encodeEvent<K extends EventName>(name: K, payload: EventPayload<K>): Uint8Array {
  return encodeMessage(eventValidator(name), payload);
}

/** What a message of the declared subject `name` carries, checked against the NATS table. */
export function decodeEvent<K extends EventName>(name: K, data: Uint8Array): EventPayload<K> {
  return decodeMessage(eventValidator(name), data);
}

/**
 * Publishes a durable fact to JetStream with `Nats-Msg-Id` = its business key, so a
 * re-publish within the duplicate window is dropped by the server. Resolves when the
 * stream has stored it; reports whether it was a duplicate.
 */
export async function publishDurable(
  js: JetStreamClient,
  subject: string,
  data: Uint8Array,
  msgId: string,
  correlationId?: string,
): Promise<{ duplicate: boolean; seq: number }> {
  const h = headers();
  if (correlationId !== undefined) h.set(CORRELATION_HEADER, correlationId);
  const ack = await js.publish(subject, data, { msgID: msgId, headers: h });
  return { duplicate: ack.duplicate, seq: ack.seq };
}

export function jetStreamOf(nc: NatsConnection): JetStreamClient {
  return jetstream(nc);
}
