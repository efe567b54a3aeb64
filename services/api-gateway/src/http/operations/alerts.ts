import { ALERT_ID_RE } from '@gridlab/contracts';
import { NotFoundError } from '@gridlab/errors';
import type { Handlers } from './handler';

/** A path id, or 404: a malformed id names no rule (the same answer as another owner's). */
function alertId(id: string): string {
  if (!ALERT_ID_RE.test(id)) throw new NotFoundError('alert_not_found', 'no such alert rule');
  return id;
}

/** Alert rules, answered by the notifier; the key's subscriber is the owner. */
export const alertsHandlers: Handlers<
  'listAlerts' | 'createAlert' | 'getAlert' | 'updateAlert' | 'deleteAlert' | 'rotateAlertSecret' | 'testAlert' | 'listAlertDeliveries' | 'redeliverAlert'
> = {
  listAlerts: async ({ deps, res, caller, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.alerts.list(caller.subscriberId, requestId));
  },
  createAlert: async ({ deps, req, res, caller, requestId }) => {
    // The answer holds the signing secret: never cached.
    res.status(201).set('Cache-Control', 'no-store').json(await deps.alerts.create(caller.subscriberId, req.body, requestId));
  },
  getAlert: async ({ deps, params, res, caller, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.alerts.get(caller.subscriberId, alertId(params.path.id), requestId));
  },
  updateAlert: async ({ deps, params, req, res, caller, requestId }) => {
    res.json(await deps.alerts.update(caller.subscriberId, alertId(params.path.id), req.body, requestId));
  },
  deleteAlert: async ({ deps, params, res, caller, requestId }) => {
    res.json(await deps.alerts.delete(caller.subscriberId, alertId(params.path.id), requestId));
  },
  rotateAlertSecret: async ({ deps, params, res, caller, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.alerts.rotateSecret(caller.subscriberId, alertId(params.path.id), requestId));
  },
  testAlert: async ({ deps, params, res, caller, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.alerts.test(caller.subscriberId, alertId(params.path.id), requestId));
  },
  listAlertDeliveries: async ({ deps, params, res, caller, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.alerts.deliveries(caller.subscriberId, alertId(params.path.id), requestId));
  },
  redeliverAlert: async ({ deps, params, res, caller, requestId }) => {
    res.status(202).json(await deps.alerts.redeliver(caller.subscriberId, alertId(params.path.id), params.path.firingId, requestId));
  },
};
