/**
 * The suite's contracts: NATS names (subjects, streams, buckets), message types and
 * their ajv-validated JSON schemas. Producers validate before publishing, consumers
 * after receiving.
 */
import { addSchema, compileValidator } from './validate';
import { keySharedSchema, liveSnapshotSchema, logEventSchema, roundOpenedSchema, roundSchema } from './schemas';

export { natsNames, DUPLICATE_WINDOW_MS, CORRELATION_HEADER, type NatsNames } from './names';
export type { Round, PayoutRule, RoundSource, LiveSnapshot, LiveGame, LiveStatus, RoundOpened, KeyShared, LogEvent, EventKind } from './messages';
export { EVENT_KINDS } from './messages';
export { roundSchema, liveSnapshotSchema, roundOpenedSchema, keySharedSchema, logEventSchema } from './schemas';
export { compileValidator, type Validator } from './validate';
export { dateTimeMs, isDateTime } from './date-time';

import type { KeyShared, LiveSnapshot, LogEvent, Round, RoundOpened } from './messages';

addSchema(roundSchema);
export const validateRound = compileValidator<Round>(roundSchema, 'round');
export const validateLiveSnapshot = compileValidator<LiveSnapshot>(liveSnapshotSchema, 'live snapshot');
export const validateRoundOpened = compileValidator<RoundOpened>(roundOpenedSchema, 'round opened');
export const validateKeyShared = compileValidator<KeyShared>(keySharedSchema, 'key shared');
export const validateLogEvent = compileValidator<LogEvent>(logEventSchema, 'log event');

export type {
  Plan,
  Pricing,
  SubscribeStartRequest,
  SubscriptionStart,
  SubscribeCompleteRequest,
  SubscribeMessageFields,
  IssuedKeyReply,
  ReissueStartRequest,
  ReissueStart,
  ReissueCompleteRequest,
  KeyRevokeRequest,
  KeyRevokeReply,
  KeyRevoked,
  SessionEndRequest,
  SessionEndReply,
  SessionEnded,
  CommandError,
  CommandReply,
  SubscriptionFact,
  TierFact,
} from './billing';
import * as billing from './billing';
export {
  API_KEY_RE,
  SUBSCRIBER_ID_RE,
  PAYMENT_NONCE_RE,
  REISSUE_NONCE_RE,
  pricingRequestSchema,
  pricingSchema,
  subscribeStartRequestSchema,
  subscriptionStartSchema,
  subscribeCompleteRequestSchema,
  issuedKeySchema,
  reissueStartRequestSchema,
  reissueStartSchema,
  reissueCompleteRequestSchema,
  keyRevokeRequestSchema,
  keyRevokeReplySchema,
  commandReplySchema,
  subscriptionFactSchema,
  tierFactSchema,
  subscribeMessage,
  parseSubscribeMessage,
  keyRevokedSchema,
  sessionEndRequestSchema,
  sessionEndReplySchema,
  sessionEndedSchema,
} from './billing';

export const validatePricingRequest = compileValidator<Record<string, never>>(billing.pricingRequestSchema, 'pricing request');
export const validatePricing = compileValidator<billing.Pricing>(billing.pricingSchema, 'pricing');
export const validateSubscribeStartRequest = compileValidator<billing.SubscribeStartRequest>(
  billing.subscribeStartRequestSchema,
  'subscribe request',
);
export const validateSubscriptionStart = compileValidator<billing.SubscriptionStart>(billing.subscriptionStartSchema, 'subscription start');
export const validateSubscribeCompleteRequest = compileValidator<billing.SubscribeCompleteRequest>(
  billing.subscribeCompleteRequestSchema,
  'subscribe completion',
);
export const validateIssuedKey = compileValidator<billing.IssuedKeyReply>(billing.issuedKeySchema, 'issued key');
export const validateReissueStartRequest = compileValidator<billing.ReissueStartRequest>(billing.reissueStartRequestSchema, 'reissue request');
export const validateReissueStart = compileValidator<billing.ReissueStart>(billing.reissueStartSchema, 'reissue start');
export const validateReissueCompleteRequest = compileValidator<billing.ReissueCompleteRequest>(
  billing.reissueCompleteRequestSchema,
  'reissue completion',
);
export const validateKeyRevokeRequest = compileValidator<billing.KeyRevokeRequest>(billing.keyRevokeRequestSchema, 'key revocation');
export const validateKeyRevokeReply = compileValidator<billing.KeyRevokeReply>(billing.keyRevokeReplySchema, 'key revocation reply');
export const validateKeyRevoked = compileValidator<billing.KeyRevoked>(billing.keyRevokedSchema, 'key revoked');
export const validateSessionEndRequest = compileValidator<billing.SessionEndRequest>(billing.sessionEndRequestSchema, 'session end request');
export const validateSessionEndReply = compileValidator<billing.SessionEndReply>(billing.sessionEndReplySchema, 'session end reply');
export const validateSessionEnded = compileValidator<billing.SessionEnded>(billing.sessionEndedSchema, 'session ended');
export const validateCommandReply = compileValidator<billing.CommandReply<unknown>>(billing.commandReplySchema, 'command reply');
export const validateSubscriptionFact = compileValidator<billing.SubscriptionFact>(billing.subscriptionFactSchema, 'subscription fact');
export const validateTierFact = compileValidator<billing.TierFact>(billing.tierFactSchema, 'tier fact');

export type { BacktestRequest, AnalyticsRequest, BacktestResult, BacktestSummary, Analytics, Distribution, ExitReason } from './lab';
import * as lab from './lab';
export { CHUNK_HEADER, CHUNKS_HEADER, CACHE_HEADER, CLIENT_HEADER, DEADLINE_HEADER, backtestRequestSchema, analyticsRequestSchema, backtestResultSchema, analyticsSchema } from './lab';

export const validateBacktestRequest = compileValidator<lab.BacktestRequest>(lab.backtestRequestSchema, 'backtest request');
export const validateAnalyticsRequest = compileValidator<lab.AnalyticsRequest>(lab.analyticsRequestSchema, 'analytics request');
export const validateBacktestResult = compileValidator<lab.BacktestResult>(lab.backtestResultSchema, 'backtest result');
export const validateAnalytics = compileValidator<lab.Analytics>(lab.analyticsSchema, 'analytics');

export type {
  StopReason,
  Strategy,
  StrategyListItem,
  StrategyListStats,
  StrategyCreateBody,
  StrategyUpdateBody,
  StrategyOwnerRequest,
  StrategyCreateRequest,
  StrategyIdRequest,
  StrategyUpdateRequest,
  StrategyReply,
  StrategyDetailReply,
  StrategyListReply,
  StrategyDeleteReply,
  ForwardStats,
  ForwardEquityPoint,
  Leaderboard,
  LeaderboardEntry,
  LeaderboardEntryRequest,
  LeaderboardDetail,
} from './strategies';
import * as strategies from './strategies';
export {
  STRATEGY_ID_RE,
  MAX_STRATEGIES_PER_OWNER,
  MAX_STRATEGY_NAME,
  strategyCreateBodySchema,
  strategyUpdateBodySchema,
  strategyOwnerRequestSchema,
  strategyCreateRequestSchema,
  strategyIdRequestSchema,
  strategyUpdateRequestSchema,
  strategyReplySchema,
  strategyDetailReplySchema,
  strategyListReplySchema,
  strategyDeleteReplySchema,
  forwardStatsSchema,
  leaderboardRequestSchema,
  leaderboardSchema,
  leaderboardEntryRequestSchema,
  leaderboardDetailSchema,
} from './strategies';

export const validateStrategyCreateBody = compileValidator<strategies.StrategyCreateBody>(strategies.strategyCreateBodySchema, 'strategy');
export const validateStrategyUpdateBody = compileValidator<strategies.StrategyUpdateBody>(strategies.strategyUpdateBodySchema, 'strategy update');
export const validateStrategyOwnerRequest = compileValidator<strategies.StrategyOwnerRequest>(strategies.strategyOwnerRequestSchema, 'strategy list request');
export const validateStrategyCreateRequest = compileValidator<strategies.StrategyCreateRequest>(strategies.strategyCreateRequestSchema, 'strategy');
export const validateStrategyIdRequest = compileValidator<strategies.StrategyIdRequest>(strategies.strategyIdRequestSchema, 'strategy request');
export const validateStrategyUpdateRequest = compileValidator<strategies.StrategyUpdateRequest>(strategies.strategyUpdateRequestSchema, 'strategy update');
export const validateStrategyReply = compileValidator<strategies.StrategyReply>(strategies.strategyReplySchema, 'strategy reply');
export const validateStrategyDetailReply = compileValidator<strategies.StrategyDetailReply>(strategies.strategyDetailReplySchema, 'strategy detail');
export const validateStrategyListReply = compileValidator<strategies.StrategyListReply>(strategies.strategyListReplySchema, 'strategy list');
export const validateStrategyDeleteReply = compileValidator<strategies.StrategyDeleteReply>(strategies.strategyDeleteReplySchema, 'strategy deletion');
export const validateForwardStats = compileValidator<strategies.ForwardStats>(strategies.forwardStatsSchema, 'forward stats');
export const validateLeaderboardRequest = compileValidator<Record<string, never>>(strategies.leaderboardRequestSchema, 'leaderboard request');
export const validateLeaderboard = compileValidator<strategies.Leaderboard>(strategies.leaderboardSchema, 'leaderboard');
export const validateLeaderboardEntryRequest = compileValidator<strategies.LeaderboardEntryRequest>(strategies.leaderboardEntryRequestSchema, 'leaderboard entry request');
export const validateLeaderboardDetail = compileValidator<strategies.LeaderboardDetail>(strategies.leaderboardDetailSchema, 'leaderboard entry');
