import type { Handlers } from './handler';

/** Pricing, subscriptions and key rotation, answered by billing (it validates the bodies). */
export const billingHandlers: Handlers<'getPricing' | 'startSubscription' | 'completeSubscription' | 'startReissue' | 'completeReissue'> = {
  getPricing: async ({ deps, res, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.billing.pricing(requestId));
  },
  startSubscription: async ({ deps, req, res, requestId }) => {
    res.json(await deps.billing.startSubscription(req.body, requestId));
  },
  // An issued key is shown once: no cache may keep it.
  completeSubscription: async ({ deps, req, res, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.billing.completeSubscription(req.body, requestId));
  },
  startReissue: async ({ deps, req, res, requestId }) => {
    res.json(await deps.billing.startReissue(req.body, requestId));
  },
  completeReissue: async ({ deps, req, res, requestId }) => {
    res.set('Cache-Control', 'no-store').json(await deps.billing.completeReissue(req.body, requestId));
  },
};
