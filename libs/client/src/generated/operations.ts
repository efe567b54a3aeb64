/**
 * Generated from the operation table in libs/contracts/src/api by `pnpm -s generate`
 * (tools/api-docs): do not edit. Declare operations there.
 */
import type { operations } from './openapi.ts';

/** How an operation is sent: what the client needs of the operation table to call it by operationId. */
export interface OperationRoute {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The OpenAPI path template (`/api/v1/rounds/{id}`). */
  readonly path: string;
  /** `public`: no key; `paid`: the API key (or the dashboard's session); `session`: the dashboard's session cookie only. */
  readonly access: 'public' | 'paid' | 'session';
  /** The media type of the success answer (`text/event-stream` for a stream); null when it has no body. */
  readonly answers: string | null;
}

/** Every operation of the API by operationId, in the order the OpenAPI document lists them. */
export const OPERATIONS = {
  getLive: { method: 'get', path: '/api/v1/live', access: 'paid', answers: 'application/json' },
  getLiveEv: { method: 'get', path: '/api/v1/live/ev', access: 'paid', answers: 'application/json' },
  streamLive: { method: 'get', path: '/api/v1/stream', access: 'paid', answers: 'text/event-stream' },
  getStats: { method: 'get', path: '/api/v1/stats', access: 'paid', answers: 'application/json' },
  listRounds: { method: 'get', path: '/api/v1/rounds', access: 'paid', answers: 'application/json' },
  getRound: { method: 'get', path: '/api/v1/rounds/{id}', access: 'paid', answers: 'application/json' },
  getGrid: { method: 'get', path: '/api/v1/grid/{n}', access: 'paid', answers: 'application/json' },
  dumpRounds: { method: 'get', path: '/api/v1/dump', access: 'paid', answers: 'application/json' },
  getOpenApi: { method: 'get', path: '/api/v1/openapi.json', access: 'public', answers: 'application/json' },
  getPricing: { method: 'get', path: '/api/v1/pricing', access: 'public', answers: 'application/json' },
  startSubscription: { method: 'post', path: '/api/v1/subscribe', access: 'public', answers: 'application/json' },
  completeSubscription: { method: 'put', path: '/api/v1/subscribe', access: 'public', answers: 'application/json' },
  startReissue: { method: 'post', path: '/api/v1/reissue', access: 'public', answers: 'application/json' },
  completeReissue: { method: 'put', path: '/api/v1/reissue', access: 'public', answers: 'application/json' },
  listEvents: { method: 'get', path: '/api/v1/events', access: 'paid', answers: 'application/json' },
  streamEvents: { method: 'get', path: '/api/v1/events/stream', access: 'paid', answers: 'text/event-stream' },
  listStrategies: { method: 'get', path: '/api/v1/lab/strategies', access: 'paid', answers: 'application/json' },
  createStrategy: { method: 'post', path: '/api/v1/lab/strategies', access: 'paid', answers: 'application/json' },
  getStrategy: { method: 'get', path: '/api/v1/lab/strategies/{id}', access: 'paid', answers: 'application/json' },
  updateStrategy: { method: 'patch', path: '/api/v1/lab/strategies/{id}', access: 'paid', answers: 'application/json' },
  deleteStrategy: { method: 'delete', path: '/api/v1/lab/strategies/{id}', access: 'paid', answers: 'application/json' },
  restoreStrategy: { method: 'post', path: '/api/v1/lab/strategies/{id}/restore', access: 'paid', answers: 'application/json' },
  getForwardStats: { method: 'get', path: '/api/v1/lab/strategies/{id}/forward', access: 'paid', answers: 'application/json' },
  runBacktest: { method: 'post', path: '/api/v1/lab/backtest', access: 'paid', answers: 'application/json' },
  runAnalytics: { method: 'post', path: '/api/v1/lab/analytics', access: 'paid', answers: 'application/json' },
  getLeaderboard: { method: 'get', path: '/api/v1/lab/leaderboard', access: 'public', answers: 'application/json' },
  getLeaderboardEntry: { method: 'get', path: '/api/v1/lab/leaderboard/{id}', access: 'paid', answers: 'application/json' },
  getMiner: { method: 'get', path: '/api/v1/miners/{address}', access: 'paid', answers: 'application/json' },
  listMinerRounds: { method: 'get', path: '/api/v1/miners/{address}/rounds', access: 'paid', answers: 'application/json' },
  getMinerPerformance: { method: 'get', path: '/api/v1/miners/{address}/performance', access: 'paid', answers: 'application/json' },
  listTopMiners: { method: 'get', path: '/api/v1/miners', access: 'paid', answers: 'application/json' },
  getRoundMiners: { method: 'get', path: '/api/v1/rounds/{id}/miners', access: 'paid', answers: 'application/json' },
  streamMiner: { method: 'get', path: '/api/v1/miners/{address}/stream', access: 'paid', answers: 'text/event-stream' },
  listAlerts: { method: 'get', path: '/api/v1/alerts', access: 'paid', answers: 'application/json' },
  createAlert: { method: 'post', path: '/api/v1/alerts', access: 'paid', answers: 'application/json' },
  streamAlerts: { method: 'get', path: '/api/v1/alerts/stream', access: 'paid', answers: 'text/event-stream' },
  getAlert: { method: 'get', path: '/api/v1/alerts/{id}', access: 'paid', answers: 'application/json' },
  updateAlert: { method: 'patch', path: '/api/v1/alerts/{id}', access: 'paid', answers: 'application/json' },
  deleteAlert: { method: 'delete', path: '/api/v1/alerts/{id}', access: 'paid', answers: 'application/json' },
  rotateAlertSecret: { method: 'post', path: '/api/v1/alerts/{id}/secret', access: 'paid', answers: 'application/json' },
  testAlert: { method: 'post', path: '/api/v1/alerts/{id}/test', access: 'paid', answers: 'application/json' },
  listAlertDeliveries: { method: 'get', path: '/api/v1/alerts/{id}/deliveries', access: 'paid', answers: 'application/json' },
  redeliverAlert: { method: 'post', path: '/api/v1/alerts/{id}/deliveries/{firingId}/redeliver', access: 'paid', answers: 'application/json' },
  getDashboardConfig: { method: 'get', path: '/api/live/config', access: 'public', answers: 'application/json' },
  startSessionChallenge: { method: 'post', path: '/api/live/session/challenge', access: 'public', answers: 'application/json' },
  startSession: { method: 'post', path: '/api/live/session', access: 'public', answers: 'application/json' },
  getSession: { method: 'get', path: '/api/live/session', access: 'session', answers: 'application/json' },
  endSession: { method: 'delete', path: '/api/live/session', access: 'public', answers: null },
} as const satisfies { readonly [Id in keyof operations]: OperationRoute };
