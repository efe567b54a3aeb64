/**
 * The AsyncAPI document's channels, operations and messages, written from the NATS table
 * in @gridlab/contracts (COMMANDS, EVENTS): a command is a request channel, a receive
 * operation whose reply goes to an inbox channel, and its request and result messages; an
 * event is a channel, its send operation and the receive operations the table names.
 */
import * as contracts from '@gridlab/contracts';
import type { BusMessage, CommandSpec, EventSpec } from '@gridlab/contracts';

type Json = Record<string, unknown>;

/** The inbox channels: one whole CommandReply, or its bytes in chunks. */
const REPLY_CHANNEL = 'commandReply';
const CHUNKED_REPLY_CHANNEL = 'chunkedReply';
const CHUNK_MESSAGE = 'ReplyChunk';

const capitalized = (key: string): string => key[0]!.toUpperCase() + key.slice(1);
const lowered = (name: string): string => name[0]!.toLowerCase() + name.slice(1);
const nameOf = (m: BusMessage): string => m.schema.$id!;
const messageRef = (name: string): Json => ({ $ref: `#/components/messages/${name}` });
const channelRef = (key: string): Json => ({ $ref: `#/channels/${key}` });

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`;
}

function headerObject(names: readonly string[]): Json | undefined {
  if (names.length === 0) return undefined;
  return { type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) };
}

export interface AsyncApiParts {
  readonly channels: Json;
  readonly operations: Json;
  readonly messages: Json;
  /** Message name → its schema: the document's `components.schemas`. */
  readonly payloads: Record<string, contracts.TSchema>;
}

/** The parts of the AsyncAPI document the table decides, with the addresses of an unprefixed deployment. */
export function asyncApiParts(): AsyncApiParts {
  const names = contracts.natsNames('');
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  const payloads: Record<string, contracts.TSchema> = {};
  const seen = new Map<string, BusMessage>();

  const addMessage = (m: BusMessage, description: string | undefined, headers: readonly string[]): string => {
    const name = nameOf(m);
    const before = seen.get(name);
    if (before !== undefined) {
      if (before !== m) throw new Error(`two bus messages are named ${name}: declare it once and share it`);
      return name;
    }
    seen.set(name, m);
    const header = headerObject(headers);
    messages[name] = { name, ...(description === undefined ? {} : { description }), ...(header === undefined ? {} : { headers: header }), payload: { $ref: `#/components/schemas/${name}` } };
    payloads[name] = m.schema;
    return name;
  };

  // Events: a channel, its send operation, its receivers.
  for (const [key, spec] of Object.entries(contracts.EVENTS) as [contracts.EventName, EventSpec][]) {
    const name = addMessage(spec.payload, spec.payload.description, spec.stream === undefined ? [] : ['Nats-Msg-Id']);
    channels[key] = { address: names.subjects[key], description: spec.description, messages: { [lowered(name)]: messageRef(name) } };
    operations[`publish${capitalized(key)}`] = { action: 'send', channel: channelRef(key), summary: `${spec.publisher.service} ${spec.publisher.summary}` };
    for (const receiver of spec.receivers ?? []) {
      const id = `receive${capitalized(key)}${(spec.receivers ?? []).length > 1 ? capitalized(receiver.service.replace(/-(.)/g, (_, c: string) => c.toUpperCase())) : ''}`;
      operations[id] = { action: 'receive', channel: channelRef(key), summary: `${receiver.service} ${receiver.summary}` };
    }
  }

  // Commands: a request channel and the operation that answers it; results are messages of their own.
  const commands = Object.entries(contracts.COMMANDS) as [contracts.CommandName, CommandSpec][];
  const resultOf = new Map<string, string[]>();
  for (const [key, spec] of commands) resultOf.set(nameOf(spec.reply), [...(resultOf.get(nameOf(spec.reply)) ?? []), names.commands[key]]);
  for (const [key, spec] of commands) {
    const request = addMessage(spec.request, spec.request.description, [contracts.CORRELATION_HEADER]);
    const result = nameOf(spec.reply);
    const replyChannel = spec.chunked === true ? CHUNKED_REPLY_CHANNEL : REPLY_CHANNEL;
    const description = [
      `Request/reply, queue group ${names.queues[spec.queue]} (one replica answers each request).`,
      `Reply: a CommandReply${spec.chunked === true ? ` in chunks (see ${CHUNKED_REPLY_CHANNEL})` : ''} whose result is ${result}${spec.replyHeaders === undefined ? '' : `, with ${listed(spec.replyHeaders.map((h) => h.name))}`}.`,
      ...(spec.description === undefined ? [] : [spec.description]),
    ].join(' ');
    channels[key] = { address: names.commands[key], description, messages: { [lowered(request)]: messageRef(request) } };
    operations[`receive${capitalized(key)}`] = {
      action: 'receive',
      channel: channelRef(key),
      summary: `${spec.server} answers ${key} requests (${listed(spec.callers)} sends them${spec.when === undefined ? '' : ` ${spec.when}`})`,
      reply: { channel: channelRef(replyChannel) },
    };
  }
  for (const [, spec] of commands) {
    const subjects = resultOf.get(nameOf(spec.reply))!;
    addMessage(spec.reply, `Result of ${listed(subjects)}${spec.reply.description === undefined ? '' : ` (${spec.reply.description})`}.`, []);
  }

  // The inboxes: a whole CommandReply, or the chunks of one.
  const reply = addMessage(contracts.COMMAND_REPLY, contracts.COMMAND_REPLY.description, []);
  channels[REPLY_CHANNEL] = {
    address: null,
    description: 'The inbox of a request (NATS reply subject): one CommandReply.',
    messages: { [lowered(reply)]: messageRef(reply) },
  };
  const chunked = commands.filter(([, spec]) => spec.chunked === true);
  if (chunked.length > 0) {
    channels[CHUNKED_REPLY_CHANNEL] = {
      address: null,
      description: `The inbox of a request whose reply may be large (${listed(chunked.map(([key]) => names.commands[key]))}): one or more chunks of a CommandReply.`,
      messages: { [lowered(CHUNK_MESSAGE)]: messageRef(CHUNK_MESSAGE) },
    };
    const extra = chunked.flatMap(([key, spec]) =>
      (spec.replyHeaders ?? []).map((h) => [h.name, { type: 'string', enum: [...h.values], description: `${names.commands[key]} only: ${h.description}` }] as const),
    );
    messages[CHUNK_MESSAGE] = {
      name: CHUNK_MESSAGE,
      description: `One chunk of a chunked reply. The reply is a CommandReply envelope whose JSON may exceed the 1 MiB NATS max payload, so the responder splits its bytes into chunks of at most (server max_payload - 4 KiB) and publishes them in order to the request inbox; the requester concatenates chunks 0..n-1 and parses the whole (the payload schema applies to the concatenation). result is ${chunked.map(([key, spec]) => `${nameOf(spec.reply)} (${names.commands[key]})`).join(' or ')}.`,
      headers: {
        type: 'object',
        required: [contracts.CHUNK_HEADER, contracts.CHUNKS_HEADER],
        properties: {
          [contracts.CHUNK_HEADER]: { type: 'string', pattern: '^[0-9]+$', description: '0-based index of this chunk' },
          [contracts.CHUNKS_HEADER]: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'number of chunks of the reply' },
          ...Object.fromEntries(extra),
        },
      },
      payload: {
        type: 'string',
        contentMediaType: 'application/octet-stream',
        description: 'A slice of the UTF-8 bytes of a CommandReply (see the CommandReply message); only the concatenation of every chunk is JSON.',
      },
    };
  }
  return { channels, operations, messages, payloads };
}
