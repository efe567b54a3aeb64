import { API_OPERATIONS, type OperationId, type OperationSpec } from '@gridlab/contracts';
import type { Express, Request, Response } from 'express';
import type { Caller } from '../../app/access';
import { addressOf, authorize, rateLimitHeaders, type AppDeps } from '../app';
import { admitSession, isDashboardPath } from '../dashboard';
import { alertsHandlers } from './alerts';
import { billingHandlers } from './billing';
import { eventsHandlers } from './events';
import { RAW_OPERATIONS, type Handlers, type RawOperationId, type RoutedOperationId } from './handler';
import { labHandlers } from './lab';
import { minersHandlers } from './miners';
import { compileParameters } from './parameters';
import { roundsHandlers } from './rounds';
import { sessionHandlers } from './session';

export { RAW_OPERATIONS, type RawHandlers } from './handler';
export { rawHandlers, type GatewayStreams } from './live';

/** The handlers of every operation the Express app serves, by operationId. */
export const ROUTED_HANDLERS: Handlers<RoutedOperationId> = { ...roundsHandlers, ...billingHandlers, ...eventsHandlers, ...labHandlers, ...minersHandlers, ...alertsHandlers, ...sessionHandlers };

const NO_PARAMS = Object.freeze({ path: {}, query: {}, header: {} });

function isRaw(id: OperationId): id is RawOperationId {
  return (RAW_OPERATIONS as readonly string[]).includes(id);
}

/** `/api/v1/rounds/{id}` as Express writes it: `/api/v1/rounds/:id`. */
function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Lets a request through as the operation's access says, taking its cost; the caller, unless the operation is public. */
function admission(deps: AppDeps, op: OperationSpec): (req: Request, res: Response) => Promise<Caller | undefined> {
  const { access, cost } = op;
  if (access === 'public') {
    if (cost === 0) return async () => undefined;
    // The address bucket takes one token a request.
    if (cost !== 1) throw new Error(`${op.method.toUpperCase()} ${op.path}: a public operation costs 0 or 1 tokens`);
    return async (req, res) => {
      res.set(rateLimitHeaders(await deps.access.admitAddress(addressOf(deps, req))));
      return undefined;
    };
  }
  return async (req, res) => {
    // A session operation needs the cookie's session itself; a paid one takes a Bearer key or a mirrored session.
    if (access === 'session') admitSession(req, deps.dashboard.session(req));
    const caller = await authorize(deps, req, cost);
    res.set(rateLimitHeaders(caller.decision));
    return caller;
  };
}

/**
 * Registers every operation of the table but the raw ones on `app`, in the table's
 * order: the dashboard's Origin check for its paths, then access (and cost), then the
 * parameters (checked by ajv, compiled here once), then the handler.
 */
export function bindOperations(app: Express, deps: AppDeps): void {
  for (const op of API_OPERATIONS) {
    if (isRaw(op.operationId)) continue;
    // Each handler takes its own operation's context; this loop builds that context from the same operation.
    const handler = (ROUTED_HANDLERS as unknown as Partial<Record<OperationId, (ctx: unknown) => void | Promise<void>>>)[op.operationId];
    if (handler === undefined) throw new Error(`operation ${op.operationId} has no handler`);
    const check = compileParameters(op);
    const admit = admission(deps, op);
    const dashboard = isDashboardPath(op.path);
    app[op.method](expressPath(op.path), async (req: Request, res: Response) => {
      if (dashboard) deps.dashboard.checkOrigin(req);
      const caller = await admit(req, res);
      const params = check === undefined ? NO_PARAMS : check({ path: req.params as Record<string, string>, query: req.query, headers: req.headers });
      await handler({ req, res, params, caller, deps, requestId: String(res.getHeader('X-Request-Id') ?? '') });
    });
  }
}
