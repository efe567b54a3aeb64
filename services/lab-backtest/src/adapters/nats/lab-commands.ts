import { respondChunked, toCommandError, type Msg, type NatsConnection, type Subscription } from '@gridlab/bus';
import * as contracts from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import type { Lab, LabReply } from '../../app/lab';
import type { JobCaller } from '../../app/ports';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

type Outcome = 'ok' | 'error';

interface LabRoute {
  readonly subject: string;
  readonly kind: 'backtest' | 'analytics';
  readonly handle: (request: unknown, caller: JobCaller) => Promise<LabReply>;
}

/** Hooks for metrics: one call per answered request. */
export interface LabCommandHooks {
  answered(kind: LabRoute['kind'], outcome: Outcome, cached: boolean, seconds: number): void;
}

/**
 * Answers `lab.backtest.run` and `lab.analytics.run` in queue group `lab-backtest`.
 * Requests are validated against their contracts; results arrive as ready-made reply
 * bytes (serialized on a worker) and go back in chunks that each fit NATS' max payload
 * (see respondChunked), analytics with the Gridlab-Cache header. Failures take the same
 * path as every other command's (toCommandError): a business error keeps its status,
 * code and JSON paths; anything else is logged and answered as a bare 503.
 */
export function serveLab(nc: NatsConnection, names: contracts.NatsNames, lab: Lab, logger: Logger, hooks: LabCommandHooks): Subscription[] {
  // One route for each command the table gives lab-backtest (the type lists them): requests checked with the table's schemas.
  const kinds: { readonly [K in contracts.ServedBy<'lab-backtest'>]: Omit<LabRoute, 'subject'> } = {
    labBacktest: { kind: 'backtest', handle: (r, c) => lab.backtest(contracts.commandValidators('labBacktest').request(r), c) },
    labAnalytics: { kind: 'analytics', handle: (r, c) => lab.analytics(contracts.commandValidators('labAnalytics').request(r), c) },
  };
  const routes = contracts.commandsServedBy('lab-backtest').map((name) => ({ subject: names.commands[name], queue: names.queues[contracts.COMMANDS[name].queue], ...kinds[name as keyof typeof kinds] }));
  return routes.map((route) =>
    nc.subscribe(route.subject, {
      queue: route.queue,
      callback: (error, msg) => {
        if (error !== null) {
          logger.error('lab subscription failed', { subject: route.subject, err: error });
          return;
        }
        void answer(nc, route, msg, logger, hooks);
      },
    }),
  );
}

async function answer(nc: NatsConnection, route: LabRoute, msg: Msg, logger: Logger, hooks: LabCommandHooks): Promise<void> {
  const correlationId = msg.headers?.get(contracts.CORRELATION_HEADER) || undefined;
  const log = correlationId === undefined ? logger : logger.child({ requestId: correlationId });
  const started = performance.now();
  let bytes: Uint8Array;
  let cached = false;
  let outcome: Outcome = 'ok';
  try {
    const reply = await route.handle(JSON.parse(decoder.decode(msg.data)) as unknown, callerOf(msg));
    bytes = reply.bytes;
    cached = reply.cached;
  } catch (error) {
    outcome = 'error';
    bytes = encoder.encode(JSON.stringify({ ok: false, error: toCommandError(error, log, route.subject) }));
  }
  try {
    const chunks = respondChunked(nc, msg, bytes, route.kind === 'analytics' && outcome === 'ok' ? { headers: { [contracts.CACHE_HEADER]: cached ? 'hit' : 'miss' } } : {});
    const seconds = (performance.now() - started) / 1000;
    hooks.answered(route.kind, outcome, cached, seconds);
    log.debug('lab request answered', { kind: route.kind, outcome, cached, bytes: bytes.length, chunks, ms: Math.round(seconds * 1000) });
  } catch (error) {
    log.error('lab reply could not be sent', { kind: route.kind, err: error });
  }
}

/** The caller and deadline a gateway sent with the request (both optional). */
function callerOf(msg: Msg): JobCaller {
  const client = msg.headers?.get(contracts.CLIENT_HEADER) || undefined;
  const deadline = Number(msg.headers?.get(contracts.DEADLINE_HEADER) || NaN);
  return { ...(client === undefined ? {} : { client }), ...(Number.isFinite(deadline) ? { deadlineMs: deadline } : {}) };
}
