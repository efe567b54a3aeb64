import { STRATEGY_ID_RE } from '@gridlab/contracts';
import { NotFoundError } from '@gridlab/errors';
import { withLabSlot } from '../caps';
import type { Handlers } from './handler';

/** A path id, or 404: a malformed id names no strategy (the same answer as another owner's). */
function strategyId(id: string): string {
  if (!STRATEGY_ID_RE.test(id)) throw new NotFoundError('strategy_not_found', 'no such strategy');
  return id;
}

/** `{"<key>":<json>}` around a JSON value already encoded (a lab result passed through as lab-backtest encoded it). */
function wrapJson(key: string, json: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`{"${key}":`), json, Buffer.from('}')]);
}

/**
 * The Strategy Lab. Backtests and analytics are answered by lab-backtest (results may
 * exceed 1 MiB: chunked over NATS), at most LAB_JOBS_PER_KEY in flight per key; strategy
 * records, forward stats and the leaderboard by lab-forward (SPEC 7.10), the key's
 * subscriber being the owner.
 */
export const labHandlers: Handlers<
  | 'runBacktest'
  | 'runAnalytics'
  | 'listStrategies'
  | 'createStrategy'
  | 'getStrategy'
  | 'updateStrategy'
  | 'deleteStrategy'
  | 'restoreStrategy'
  | 'getForwardStats'
  | 'getLeaderboard'
  | 'getLeaderboardEntry'
> = {
  runBacktest: async ({ deps, req, res, caller, requestId }) => {
    const { json } = await withLabSlot(deps.labJobs, caller, () => deps.lab.backtest(req.body, requestId, caller.subscriberId));
    res.set('Cache-Control', 'no-store').type('application/json').send(wrapJson('result', json));
  },
  runAnalytics: async ({ deps, req, res, caller, requestId }) => {
    const { json, cache } = await withLabSlot(deps.labJobs, caller, () => deps.lab.analytics(req.body, requestId, caller.subscriberId));
    if (cache !== undefined) res.set('X-Cache', cache);
    res.set('Cache-Control', 'no-store').type('application/json').send(wrapJson('analytics', json));
  },
  listStrategies: async ({ deps, res, caller, requestId }) => {
    res.json(await deps.strategies.list(caller.subscriberId, requestId));
  },
  createStrategy: async ({ deps, req, res, caller, requestId }) => {
    res.status(201).json(await deps.strategies.create(caller.subscriberId, req.body, requestId));
  },
  getStrategy: async ({ deps, params, res, caller, requestId }) => {
    res.json(await deps.strategies.get(caller.subscriberId, strategyId(params.path.id), requestId));
  },
  updateStrategy: async ({ deps, params, req, res, caller, requestId }) => {
    res.json(await deps.strategies.update(caller.subscriberId, strategyId(params.path.id), req.body, requestId));
  },
  deleteStrategy: async ({ deps, params, res, caller, requestId }) => {
    res.json(await deps.strategies.delete(caller.subscriberId, strategyId(params.path.id), requestId));
  },
  // A deletion is recoverable until the purge (LAB_DELETED_RETENTION_DAYS): the owner restores it.
  restoreStrategy: async ({ deps, params, res, caller, requestId }) => {
    res.json(await deps.strategies.restore(caller.subscriberId, strategyId(params.path.id), requestId));
  },
  getForwardStats: async ({ deps, params, res, caller, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.strategies.forward(caller.subscriberId, strategyId(params.path.id), requestId));
  },
  getLeaderboard: async ({ deps, res, requestId }) => {
    res.json(await deps.strategies.leaderboard(requestId));
  },
  getLeaderboardEntry: async ({ deps, params, res, requestId }) => {
    res.json(await deps.strategies.leaderboardEntry(strategyId(params.path.id), requestId));
  },
};
