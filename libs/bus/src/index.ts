/**
 * NATS plumbing shared by the services: a connection that reconnects forever, the
 * JetStream stream and KV bucket definitions, durable publishing with Nats-Msg-Id and
 * correlation headers, and contract-validated JSON encoding on both ends.
 */
export { connectBus, inboxPrefixFor, type BusOptions, type NatsConnection } from './connect';
export { ensureRoundsStream, ensureBillingStream, openLiveBucket, deleteGridlabStreams, type StreamSettings } from './streams';
export { publishDurable, encodeMessage, decodeMessage, encodeEvent, decodeEvent, jetStreamOf } from './publish';
export type { KV } from '@nats-io/kv';
export type { JetStreamClient } from '@nats-io/jetstream';
export { serveCommands, stopServing, requestCommand, route, toCommandError, type CommandRoute, type AnyCommandRoute, type RequestOptions } from './commands';
export { consumeDurable, type DurableConsumerOptions, type DeliveryOutcome } from './consume';
export type { JsMsg } from '@nats-io/jetstream';
export { respondChunked, requestChunked, requestChunkedRaw, replyChunkBytes, type ChunkedReplyOptions, type ChunkedResult, type RawResult } from './chunked';
export type { Msg, Subscription } from '@nats-io/transport-node';
export { sendCommand, sendCommandRaw, serveDeclared, type CommandContext, type CommandHandler, type CommandHandlers } from './declared';
