import { CORRELATION_HEADER, commandReplyValidator, type CommandError, type CommandReply, type Validator } from '@gridlab/contracts';
import { DecodeError, TimeoutError, UnavailableError, errorFromWire, isGridlabError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import { RequestError, TimeoutError as NatsTimeoutError, headers, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';

/** Every command reply's envelope, checked before its result is. */
const replyEnvelope = commandReplyValidator();

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One command a service answers: its request contract, handler and result contract. */
export interface CommandRoute<Req, Res> {
  readonly subject: string;
  readonly request: Validator<Req>;
  readonly result: Validator<Res>;
  readonly handle: (request: Req, context: { readonly correlationId: string | undefined; readonly logger: Logger }) => Promise<Res>;
}

/** A route whose types were checked where it was built. */
// The request and result types differ per route; `any` lets one list hold them all (each was checked by route()).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommandRoute = CommandRoute<any, any>;

export function route<Req, Res>(r: CommandRoute<Req, Res>): AnyCommandRoute {
  return r;
}

/** The answers each serving subscription has on their way, so stopping can wait for them. */
const answering = new WeakMap<Subscription, Set<Promise<void>>>();

/**
 * Answers NATS requests on each route's subject in a queue group (replicas share the
 * load). Requests and results are validated against their contracts; a business error
 * travels back as `{ ok: false, error }` with its HTTP status and code; anything else is
 * logged and answered as a 503 that reveals nothing. `stopServing` ends them.
 */
export function serveCommands(nc: NatsConnection, queue: string, routes: readonly AnyCommandRoute[], logger: Logger): Subscription[] {
  return routes.map((r) => {
    const pending = new Set<Promise<void>>();
    const subscription = nc.subscribe(r.subject, {
      queue,
      callback: (error, msg) => {
        if (error !== null) {
          logger.error('command subscription failed', { subject: r.subject, err: error });
          return;
        }
        const answered = answer(r, msg, logger).finally(() => pending.delete(answered));
        pending.add(answered);
      },
    });
    answering.set(subscription, pending);
    return subscription;
  });
}

/**
 * Stops serving: no new command is taken (the queue group's other replicas get them),
 * and every command already taken is answered before this resolves, while the
 * connection and the stores it needs are still open.
 */
export async function stopServing(subscriptions: readonly Subscription[]): Promise<void> {
  await Promise.all(subscriptions.map((s) => s.drain().catch(() => undefined)));
  await Promise.all(subscriptions.flatMap((s) => [...(answering.get(s) ?? [])]));
}

async function answer(r: AnyCommandRoute, msg: Msg, logger: Logger): Promise<void> {
  const correlationId = msg.headers?.get(CORRELATION_HEADER) || undefined;
  const log = correlationId === undefined ? logger : logger.child({ requestId: correlationId });
  const started = performance.now();
  let reply: CommandReply<unknown>;
  try {
    const request: unknown = r.request(JSON.parse(decoder.decode(msg.data)) as unknown);
    const result: unknown = await r.handle(request, { correlationId, logger: log });
    reply = { ok: true, result: ownResult(r, result) };
  } catch (error) {
    reply = { ok: false, error: toCommandError(error, log, r.subject) };
  }
  log.debug('command answered', { subject: r.subject, ok: reply.ok, ms: Math.round(performance.now() - started) });
  if (msg.reply !== undefined) msg.respond(encoder.encode(JSON.stringify(reply)));
}

/** The handler's result, checked against its contract: a violation is this service's bug (500), never the caller's input (400). */
function ownResult(r: AnyCommandRoute, value: unknown): unknown {
  try {
    return r.result(value);
  } catch (error) {
    throw new DecodeError('bad_reply', `the result of ${r.subject} breaks its contract`, { cause: error });
  }
}

/** A reply received from another service, checked against its contracts: a violation is a 500 with no internal text. */
export function checkedReply<T>(parse: () => CommandReply<unknown>, result: Validator<T>, subject: string): T {
  let reply: CommandReply<unknown>;
  try {
    reply = parse();
  } catch (error) {
    throw new DecodeError('bad_reply', `the reply to ${subject} is not a command reply`, { cause: error });
  }
  if (!reply.ok) throw errorFromWire(reply.error);
  try {
    return result(reply.result);
  } catch (error) {
    throw new DecodeError('bad_reply', `the result of ${subject} breaks its contract`, { cause: error });
  }
}

/**
 * The wire form of a failure, in the one place commands translate errors: a business
 * error keeps its status, code and field errors; anything else is logged here and
 * becomes a 503 that reveals nothing.
 */
export function toCommandError(error: unknown, logger: Logger, subject: string): CommandError {
  if (error instanceof SyntaxError) return { kind: 'input', code: 'invalid_request', detail: 'the request is not valid JSON', retryable: false };
  if (error instanceof DecodeError) {
    logger.error('command failed: a contract broken by this service', { subject, err: error });
    return { kind: 'decode', code: 'internal_error', detail: 'the request could not be completed', retryable: false };
  }
  if (isGridlabError(error) && error.kind !== 'config') {
    return {
      kind: error.kind,
      code: error.code,
      detail: error.message,
      retryable: error.retryable,
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: Math.max(1, Math.ceil(error.retryAfterSeconds)) }),
      ...(error.errors === undefined ? {} : { errors: [...error.errors] }),
    };
  }
  logger.error('command failed', { subject, err: error });
  return { kind: 'unavailable', code: 'service_unavailable', detail: 'the service could not complete the request; retry shortly', retryable: true, retryAfterSeconds: 2 };
}

export interface RequestOptions {
  readonly timeoutMs: number;
  readonly correlationId?: string | undefined;
  /** Further headers of the request (a lab job's caller and deadline, say). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Sends a command and returns its validated result. No responder → UnavailableError
 * (503), no answer in time → TimeoutError (504), a business error → the same error.
 */
export async function requestCommand<T>(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  result: Validator<T>,
  options: RequestOptions,
): Promise<T> {
  const h = headers();
  if (options.correlationId !== undefined) h.set(CORRELATION_HEADER, options.correlationId);
  let msg: Msg;
  try {
    msg = await nc.request(subject, encoder.encode(JSON.stringify(payload)), { timeout: options.timeoutMs, headers: h });
  } catch (error) {
    if (error instanceof RequestError && error.isNoResponders()) {
      throw new UnavailableError('the service that answers this request is not running; retry shortly', { cause: error });
    }
    if (error instanceof NatsTimeoutError || (error instanceof RequestError && error.cause instanceof NatsTimeoutError)) {
      throw new TimeoutError(`no answer within ${options.timeoutMs} ms`, { cause: error });
    }
    throw new UnavailableError('the message bus is unavailable; retry shortly', { cause: error });
  }
  return checkedReply(() => replyEnvelope(JSON.parse(decoder.decode(msg.data)) as unknown), result, subject);
}
