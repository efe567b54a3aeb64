import type { Static, TSchema } from '@sinclair/typebox';
import type { QUEUES, STREAMS } from '../names';

// The shape of the NATS table (./index.ts): what the AsyncAPI document's channels,
// operations and messages are written from (tools/api-docs), what a command's caller and
// server bind to (@gridlab/bus's sendCommand and serveDeclared), and what the
// coverage test holds the services' subscriptions to.

/** The services that talk on NATS (a name as the documents write it). */
export type Service = 'indexer' | 'api-gateway' | 'billing' | 'event-log' | 'lab-forward' | 'lab-backtest' | 'notifier';

/** A message on the bus: a named contracts schema (its `$id` is the message's name) and what the document says of it. */
export interface BusMessage<S extends TSchema = TSchema> {
  readonly schema: S;
  readonly description?: string;
}

/** `schema` as a message, described once wherever it travels. */
export function message<S extends TSchema>(schema: S, description?: string): BusMessage<S> {
  if (schema.$id === undefined) throw new Error('a bus message needs a schema with an $id (its name in the documents)');
  return description === undefined ? { schema } : { schema, description };
}

/** A header a reply carries besides the chunk headers (the analytics cache flag). */
export interface ReplyHeader {
  readonly name: string;
  readonly values: readonly string[];
  readonly description: string;
}

/** One request/reply command: the caller sends `request`, one replica of `server` answers a CommandReply whose result is `reply`. */
export interface CommandSpec<Req extends TSchema = TSchema, Res extends TSchema = TSchema, Srv extends Service = Service> {
  /** Its subject, below the deployment's prefix. */
  readonly subject: string;
  /** Who answers (in queue group `queue`: one replica answers each request). */
  readonly server: Srv;
  readonly queue: keyof typeof QUEUES;
  /** Who sends it, and when if that is worth saying (`on sign-out`). */
  readonly callers: readonly Service[];
  readonly when?: string;
  readonly request: BusMessage<Req>;
  readonly reply: BusMessage<Res>;
  /** The reply may exceed NATS' max payload and comes in chunks (@gridlab/bus respondChunked). */
  readonly chunked?: boolean;
  readonly replyHeaders?: readonly ReplyHeader[];
  /** What the channel's description adds to the request/reply line. */
  readonly description?: string;
}

/** One published subject: a fact on a JetStream stream, or a core NATS signal. */
export interface EventSpec<P extends TSchema = TSchema> {
  /** Its subject, below the deployment's prefix. */
  readonly subject: string;
  readonly payload: BusMessage<P>;
  /** The JetStream stream that stores it; absent: core NATS, fire and forget. */
  readonly stream?: keyof typeof STREAMS;
  readonly description: string;
  /** Who publishes it and when (the send operation's summary). */
  readonly publisher: { readonly service: Service; readonly summary: string };
  /** Who subscribes to it on core NATS (a receive operation each); durable consumers read it through JetStream instead. */
  readonly receivers?: readonly { readonly service: Service; readonly summary: string }[];
}

/** A command as declared (the identity: it checks the shape and keeps the literal types). */
export function command<Req extends TSchema, Res extends TSchema, const Srv extends Service>(spec: CommandSpec<Req, Res, Srv>): CommandSpec<Req, Res, Srv> {
  return spec;
}

/** An event as declared. */
export function event<P extends TSchema>(spec: EventSpec<P>): EventSpec<P> {
  return spec;
}

/** The request type of a declared command. */
export type RequestOf<C> = C extends { readonly request: BusMessage<infer Req> } ? Static<Req> : never;
/** The result type of a declared command. */
export type ResultOf<C> = C extends { readonly reply: BusMessage<infer Res> } ? Static<Res> : never;
/** The payload type of a declared subject. */
export type PayloadOf<E> = E extends { readonly payload: BusMessage<infer P> } ? Static<P> : never;
