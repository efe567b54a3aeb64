import { Type } from '../kit';
import { analyticsRequestSchema, backtestRequestSchema } from '../lab';
import { analyticsResponseSchema, backtestResponseSchema } from '../http';
import {
  forwardStatsSchema,
  leaderboardDetailSchema,
  leaderboardSchema,
  strategyCreateBodySchema,
  strategyDeleteReplySchema,
  strategyDetailReplySchema,
  strategyListReplySchema,
  strategyReplySchema,
  strategyUpdateBodySchema,
} from '../strategies';
import { RATE_LIMIT_HEADERS, TIMEOUT, UNAVAILABLE, operation, problem, published } from './operation';

// The Strategy Lab: backtests and analytics (lab-backtest), strategy records, forward
// tests and the leaderboard (lab-forward), over NATS.

// The HTTP API names some bodies after the route rather than the NATS command they become.
const StrategyCreateRequest = published('StrategyCreateRequest', strategyCreateBodySchema);
const StrategyUpdateRequest = published('StrategyUpdateRequest', strategyUpdateBodySchema);
const StrategyResponse = published('StrategyResponse', strategyReplySchema);
const StrategyDetail = published('StrategyDetail', strategyDetailReplySchema);
const StrategyList = published('StrategyList', strategyListReplySchema);
const StrategyDeleted = published('StrategyDeleted', strategyDeleteReplySchema);

const strategyId = { path: Type.Object({ id: Type.String({ description: 'Strategy id (stg_ + 22 base58 characters); anything else answers 404' }) }) };
const notYours = problem("strategy_not_found: no strategy of the caller has this id (another owner's strategy answers the same)");
const limitReached = problem('strategy_limit_reached: the owner already holds 100 strategies');
const forwarded = { 503: UNAVAILABLE, 504: TIMEOUT } as const;
const labBusy = problem('service_unavailable (Retry-After): no lab-backtest replica answered, or every worker is busy');
const labTimeout = problem('timeout: the computation did not complete within the gateway deadline (LAB_TIMEOUT_MS, default 30 s)');
const tooLarge = problem('payload_too_large: request bodies are limited to 64 KiB');

export const labOperations = {
  listStrategies: operation({
    method: 'get',
    path: '/api/v1/lab/strategies',
    tags: ['lab'],
    summary: "The caller's strategies, oldest first, each with its forward figures",
    access: 'paid',
    cost: 1,
    responses: { 200: { description: 'Strategies', content: { 'application/json': StrategyList } }, ...forwarded },
  }),
  createStrategy: operation({
    method: 'post',
    path: '/api/v1/lab/strategies',
    tags: ['lab'],
    summary: "Create a strategy (active at once; forward testing starts with the next round to settle)",
    description: "The key's owner owns it. At most 100 strategies per owner. Out-of-range DSL numbers are clamped, unknown keys rejected.",
    access: 'paid',
    cost: 1,
    body: StrategyCreateRequest,
    responses: {
      201: { description: 'Created', content: { 'application/json': StrategyResponse } },
      409: limitReached,
      413: problem('payload_too_large: bodies are limited to 64 KiB'),
      ...forwarded,
    },
  }),
  getStrategy: operation({
    method: 'get',
    path: '/api/v1/lab/strategies/{id}',
    tags: ['lab'],
    summary: "One of the caller's strategies and how many predictions it has",
    access: 'paid',
    cost: 1,
    parameters: strategyId,
    responses: { 200: { description: 'Strategy', content: { 'application/json': StrategyDetail } }, 404: notYours, ...forwarded },
  }),
  updateStrategy: operation({
    method: 'patch',
    path: '/api/v1/lab/strategies/{id}',
    tags: ['lab'],
    summary: "Rename, deactivate, or reactivate (a new forward session)",
    description: "Only name and active are accepted. active=false stops recording predictions (the one recorded for the open round is dropped; the record is kept); active=true starts a new session from the next round and clears stoppedReason.",
    access: 'paid',
    cost: 1,
    parameters: strategyId,
    body: StrategyUpdateRequest,
    responses: { 200: { description: 'Strategy', content: { 'application/json': StrategyResponse } }, 404: notYours, ...forwarded },
  }),
  deleteStrategy: operation({
    method: 'delete',
    path: '/api/v1/lab/strategies/{id}',
    tags: ['lab'],
    summary: "Delete a strategy (recoverable until it is purged)",
    description: "The strategy disappears at once from the list, get, forward, PATCH, the forward test (its session ends) and the leaderboard, and no longer counts toward the 100-strategy limit. Its owner can bring it back with POST /lab/strategies/{id}/restore until lab-forward purges it, with its predictions and figures, LAB_DELETED_RETENTION_DAYS (30 by default) after the deletion.",
    access: 'paid',
    cost: 1,
    parameters: strategyId,
    responses: { 200: { description: 'Deleted', content: { 'application/json': StrategyDeleted } }, 404: notYours, ...forwarded },
  }),
  restoreStrategy: operation({
    method: 'post',
    path: '/api/v1/lab/strategies/{id}/restore',
    tags: ['lab'],
    summary: "Restore a deleted strategy of the caller",
    description: "Brings back a strategy the caller deleted, with its record, until it is purged (LAB_DELETED_RETENTION_DAYS after the deletion, 30 by default). A strategy whose forward session was running when it was deleted starts a new session from the next round (as PATCH active=true would); one that was stopped stays stopped. No body.",
    access: 'paid',
    cost: 1,
    parameters: strategyId,
    responses: {
      200: { description: 'The restored strategy', content: { 'application/json': StrategyResponse } },
      404: problem("strategy_not_found: the caller has no deleted strategy of this id (never deleted, already purged, or another owner's)"),
      409: limitReached,
      ...forwarded,
    },
  }),
  getForwardStats: operation({
    method: 'get',
    path: '/api/v1/lab/strategies/{id}/forward',
    tags: ['lab'],
    summary: "Forward-test statistics",
    description: "Figures over the rounds settled while the strategy was active (every session). Over one session they equal a backtest of the same DSL over the same rounds (sessionStartRoundId..lastSettledRoundId). lateCount: predictions decided after their round settled (lab-forward was down), from the same pre-round data. equityCurve: running net PnL in lamports per settled round, downsampled to at most 2000 points.",
    access: 'paid',
    cost: 1,
    parameters: strategyId,
    responses: { 200: { description: 'Forward stats', content: { 'application/json': forwardStatsSchema } }, 404: notYours, ...forwarded },
  }),
  runBacktest: operation({
    method: 'post',
    path: '/api/v1/lab/backtest',
    tags: ['lab'],
    summary: "Replay a Strategy DSL over the stored rounds",
    description: "Bounds are inclusive. Default window: the latest 200,000 stored rounds (all, if fewer), ending at toRoundId or the latest round. Lookbacks reach back before the window over all stored history. Every round decision uses only rounds settled before it. At most LAB_JOBS_PER_KEY (2) lab requests in flight per key (429 too_many_lab_jobs); jobs are queued fairly across subscribers and given up when the gateway stops waiting.",
    access: 'paid',
    cost: 1,
    body: backtestRequestSchema,
    responses: {
      200: { description: 'Backtest result', headers: RATE_LIMIT_HEADERS, content: { 'application/json': backtestResponseSchema } },
      400: problem(
        'invalid_request: malformed body, an invalid DSL (each problem in `errors` with its JSON path under /dsl), fromRoundId > toRoundId, an explicit window of more than 200,000 stored rounds, or a window with no stored round',
      ),
      413: tooLarge,
      503: labBusy,
      504: labTimeout,
    },
  }),
  runAnalytics: operation({
    method: 'post',
    path: '/api/v1/lab/analytics',
    tags: ['lab'],
    summary: "Monte-Carlo analytics and parameter sweeps of a Strategy DSL",
    description: "Over the default backtest window (the latest 200,000 stored rounds). Cached per normalized DSL and 100-round bucket of the latest round id for 10 minutes; `X-Cache: hit` marks a cached answer. At most LAB_JOBS_PER_KEY (2) lab requests in flight per key (429 too_many_lab_jobs).",
    access: 'paid',
    cost: 1,
    body: analyticsRequestSchema,
    responses: {
      200: {
        description: 'Analytics',
        headers: {
          ...RATE_LIMIT_HEADERS,
          'X-Cache': { description: 'hit: served from the analytics cache; miss: computed for this request', schema: Type.Unsafe({ type: 'string', enum: ['hit', 'miss'] }) },
        },
        content: { 'application/json': analyticsResponseSchema },
      },
      400: problem('invalid_request: malformed body or an invalid DSL (each problem in `errors` with its JSON path under /dsl), or no stored round to analyse'),
      413: tooLarge,
      503: labBusy,
      504: labTimeout,
    },
  }),
  getLeaderboard: operation({
    method: 'get',
    path: '/api/v1/lab/leaderboard',
    tags: ['lab'],
    summary: "Public leaderboard",
    description: "Strategies with at least minRoundsToQualify settled forward rounds (default 1000), by roiPercent descending, then roundsSettled descending; the best LAB_LEADERBOARD_SIZE (default 100). Regenerated after each settled round. No DSL here (see the paid detail).",
    access: 'public',
    cost: 1,
    responses: { 200: { description: 'Leaderboard', content: { 'application/json': leaderboardSchema } }, ...forwarded },
  }),
  getLeaderboardEntry: operation({
    method: 'get',
    path: '/api/v1/lab/leaderboard/{id}',
    tags: ['lab'],
    summary: "A leaderboard entry with its DSL and equity curve",
    access: 'paid',
    cost: 1,
    parameters: strategyId,
    responses: {
      200: { description: 'Entry', content: { 'application/json': leaderboardDetailSchema } },
      404: problem('strategy_not_found: the strategy is not on the leaderboard'),
      ...forwarded,
    },
  }),
} as const;
