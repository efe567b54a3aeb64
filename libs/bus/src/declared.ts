import {
  COMMANDS,
  commandValidators,
  commandsServedBy,
  type CommandName,
  type Commands,
  type NatsNames,
  type RequestOf,
  type ResultOf,
  type ServedBy,
  type Service,
} from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { requestChunked, requestChunkedRaw, type RawResult } from './chunked';
import { requestCommand, route, serveCommands, type AnyCommandRoute, type CommandRoute, type RequestOptions } from './commands';

/** What a handler is told besides the request: the caller's correlation id and a logger carrying it. */
export type CommandContext = Parameters<CommandRoute<unknown, unknown>['handle']>[1];

/** The handler of the declared command `K`: its request in, its result out, both as the table types them. */
export type CommandHandler<K extends CommandName> = (request: RequestOf<Commands[K]>, context: CommandContext) => Promise<ResultOf<Commands[K]>>;

/** One handler for each command the table says `S` answers, and none other. */
export type CommandHandlers<S extends Service> = { readonly [K in ServedBy<S>]: CommandHandler<K> };

/**
 * Answers every command the table (@gridlab/contracts COMMANDS) says `service` serves, on
 * its subject and in its queue group, checking requests and results with the table's
 * schemas (serveCommands). Throws when `handlers` misses a declared command or has one
 * the table does not give this service: a command is served exactly where it is declared.
 */
export function serveDeclared<S extends Service>(nc: NatsConnection, names: NatsNames, service: S, handlers: CommandHandlers<S>, logger: Logger): Subscription[] {
  const declared = commandsServedBy(service);
  const given = Object.keys(handlers) as CommandName[];
  const missing = declared.filter((name) => !given.includes(name));
  const undeclared = given.filter((name) => !declared.includes(name));
  if (missing.length > 0 || undeclared.length > 0) {
    throw new Error(`${service} must serve the commands the table gives it: missing ${missing.join(', ') || 'none'}; not declared for it ${undeclared.join(', ') || 'none'}`);
  }
  const byQueue = new Map<string, AnyCommandRoute[]>();
  for (const name of declared) {
    const { request, result } = commandValidators(name);
    const handle = (handlers as unknown as Record<CommandName, CommandHandler<CommandName>>)[name];
    const queue = names.queues[COMMANDS[name].queue];
    byQueue.set(queue, [...(byQueue.get(queue) ?? []), route({ subject: names.commands[name], request, result, handle })]);
  }
  return [...byQueue].flatMap(([queue, routes]) => serveCommands(nc, queue, routes, logger));
}

/**
 * Sends the declared command `name` and returns its result. The request is checked
 * against the table's schema before it leaves (a bad one is an InputError, never sent),
 * the result after it arrives (requestCommand; a chunked command's reply is reassembled
 * first, requestChunked). No responder → UnavailableError, no answer in time → TimeoutError.
 */
export async function sendCommand<K extends CommandName>(
  nc: NatsConnection,
  names: NatsNames,
  name: K,
  request: RequestOf<Commands[K]>,
  options: RequestOptions,
): Promise<ResultOf<Commands[K]>> {
  const checks = commandValidators(name);
  const payload = checks.request(request);
  const spec: { readonly chunked?: boolean } = COMMANDS[name];
  if (spec.chunked === true) return (await requestChunked(nc, names.commands[name], payload, checks.result, options)).result;
  return requestCommand(nc, names.commands[name], payload, checks.result, options);
}

/**
 * `sendCommand` for a chunked command whose server checks its result against the table
 * before encoding it: the request is checked here, and the result comes back as the JSON
 * bytes the server wrote (requestChunkedRaw), for the caller to pass on without parsing
 * and encoding a large result again.
 */
export function sendCommandRaw<K extends CommandName>(nc: NatsConnection, names: NatsNames, name: K, request: RequestOf<Commands[K]>, options: RequestOptions): Promise<RawResult> {
  const spec: { readonly chunked?: boolean } = COMMANDS[name];
  if (spec.chunked !== true) throw new Error(`${name} is not declared chunked: send it with sendCommand`);
  return requestChunkedRaw(nc, names.commands[name], commandValidators(name).request(request), options);
}
