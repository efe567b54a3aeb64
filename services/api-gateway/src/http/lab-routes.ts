import { STRATEGY_ID_RE } from '@gridlab/contracts';
import { NotFoundError } from '@gridlab/errors';
import type { Express, RequestHandler, Response, Router } from 'express';
import type { StrategiesClient } from '../adapters/nats/strategies-client';
import type { Caller } from '../app/authenticate';

const requestIdOf = (res: Response): string => String(res.getHeader('X-Request-Id') ?? '');

/** The caller the paid router's authentication stored for this request. */
function callerOf(res: Response): Caller {
  const caller = res.locals['caller'] as Caller | undefined;
  // The paid router authenticates before any of these routes; reaching here without a caller is a wiring bug.
  if (caller === undefined) throw new Error('lab route reached without an authenticated caller');
  return caller;
}

/** A path id, or 404: a malformed id names no strategy (the same answer as another owner's). */
function strategyId(raw: string | string[] | undefined): string {
  const id = typeof raw === 'string' ? raw : '';
  if (!STRATEGY_ID_RE.test(id)) throw new NotFoundError('strategy_not_found', 'no such strategy');
  return id;
}

/**
 * Strategy records, forward stats and the leaderboard (SPEC 7.10), answered by lab-forward
 * over NATS. Owner-scoped routes go on the paid router (the key's subscriber is the
 * owner); the leaderboard list is public, limited per client address.
 */
export function addLabRoutes(app: Express, paid: Router, byAddress: RequestHandler, strategies: StrategiesClient): void {
  app.get('/api/v1/lab/leaderboard', byAddress, async (_req, res) => {
    res.json(await strategies.leaderboard(requestIdOf(res)));
  });

  paid.post('/lab/strategies', async (req, res) => {
    res.status(201).json(await strategies.create(callerOf(res).subscriberId, req.body, requestIdOf(res)));
  });
  paid.get('/lab/strategies', async (_req, res) => {
    res.json(await strategies.list(callerOf(res).subscriberId, requestIdOf(res)));
  });
  paid.get('/lab/strategies/:id', async (req, res) => {
    res.json(await strategies.get(callerOf(res).subscriberId, strategyId(req.params['id']), requestIdOf(res)));
  });
  paid.patch('/lab/strategies/:id', async (req, res) => {
    res.json(await strategies.update(callerOf(res).subscriberId, strategyId(req.params['id']), req.body, requestIdOf(res)));
  });
  paid.delete('/lab/strategies/:id', async (req, res) => {
    res.json(await strategies.delete(callerOf(res).subscriberId, strategyId(req.params['id']), requestIdOf(res)));
  });
  // A deletion is recoverable until the purge (LAB_DELETED_RETENTION_DAYS): the owner restores it.
  paid.post('/lab/strategies/:id/restore', async (req, res) => {
    res.json(await strategies.restore(callerOf(res).subscriberId, strategyId(req.params['id']), requestIdOf(res)));
  });
  paid.get('/lab/strategies/:id/forward', async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await strategies.forward(callerOf(res).subscriberId, strategyId(req.params['id']), requestIdOf(res)));
  });
  paid.get('/lab/leaderboard/:id', async (req, res) => {
    res.json(await strategies.leaderboardEntry(strategyId(req.params['id']), requestIdOf(res)));
  });
}
