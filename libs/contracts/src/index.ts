/**
 * The suite's contracts: NATS names (subjects, streams, buckets) and every wire shape,
 * each a TypeBox schema that is both the JSON Schema ajv validates against and the
 * TypeScript type. Producers validate before publishing, consumers after receiving; the
 * API documents' schemas are generated from these (tools/api-docs).
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import * as billing from './billing';
import * as http from './http';
import * as lab from './lab';
import * as rounds from './schemas';
import * as strategies from './strategies';
import { addSchemas, compileValidator } from './validate';
import { keySharedSchema, liveSnapshotSchema, logEventSchema, roundOpenedSchema, roundSchema } from './schemas';

export { natsNames, DUPLICATE_WINDOW_MS, CORRELATION_HEADER, type NatsNames } from './names';
export type { Round, KnownRound, PayoutRule, RoundSource, LiveSnapshot, LiveGame, LiveStatus, RoundOpened, KeyShared, LogEvent, EventKind } from './schemas';
export { EVENT_KINDS, eventMatchesKind, isFullyKnown, roundSchema, liveGameSchema, liveSnapshotSchema, roundOpenedSchema, keySharedSchema, logEventSchema, payoutRuleSchema } from './schemas';
export { compileValidator, type Validator } from './validate';
export { dateTimeMs, isDateTime } from './date-time';
export { LAMPORTS_PER_SOL, ORE_BASE_UNITS } from './units';
export { Type, nullable, literals, described, type Static, type TSchema } from './kit';
export * from './http';
export {
  API,
  API_OPERATIONS,
  API_TAGS,
  ACCESS_SCHEMES,
  RATE_LIMIT_HEADERS,
  SHARED_RESPONSES,
  impliedResponses,
  isPublished,
  type Api,
  type OperationId,
  type Access,
  type ApiResponse,
  type Content,
  type Method,
  type OperationSpec,
  type ParamValues,
  type Parameters,
  type Published,
  type ResponseHeader,
} from './api';
export {
  COMMANDS,
  EVENTS,
  COMMAND_REPLY,
  commandsServedBy,
  commandValidators,
  message,
  type BusMessage,
  type CommandName,
  type EventName,
  type CommandSpec,
  type Commands,
  type EventSpec,
  type ReplyHeader,
  type RequestOf,
  type ResultOf,
  type ServedBy,
  type Service,
} from './bus';

/** Every named wire shape (a schema with an `$id`): the documents' components, and what `$ref`s resolve to. */
export const NAMED_SCHEMAS: readonly TSchema[] = [rounds, billing, lab, strategies, http].flatMap((module) =>
  Object.values(module).filter((v): v is TSchema => typeof v === 'object' && v !== null && Kind in v && typeof (v as TSchema).$id === 'string'),
);
addSchemas(NAMED_SCHEMAS);

export const validateRound = compileValidator(roundSchema, 'round');
export const validateLiveSnapshot = compileValidator(liveSnapshotSchema, 'live snapshot');
export const validateRoundOpened = compileValidator(roundOpenedSchema, 'round opened');
export const validateKeyShared = compileValidator(keySharedSchema, 'key shared');
export const validateLogEvent = compileValidator(logEventSchema, 'log event');

export type {
  Plan,
  Pricing,
  SubscribeStartRequest,
  SubscriptionStart,
  SubscribeCompleteRequest,
  SubscribeMessageFields,
  ReissueMessageFields,
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
  reissueMessage,
  keyRevokedSchema,
  sessionEndRequestSchema,
  sessionEndReplySchema,
  sessionEndedSchema,
} from './billing';

export const validatePricingRequest = compileValidator(billing.pricingRequestSchema, 'pricing request');
export const validatePricing = compileValidator(billing.pricingSchema, 'pricing');
export const validateSubscribeStartRequest = compileValidator(
  billing.subscribeStartRequestSchema,
  'subscribe request',
);
export const validateSubscriptionStart = compileValidator(billing.subscriptionStartSchema, 'subscription start');
export const validateSubscribeCompleteRequest = compileValidator(
  billing.subscribeCompleteRequestSchema,
  'subscribe completion',
);
export const validateIssuedKey = compileValidator(billing.issuedKeySchema, 'issued key');
export const validateReissueStartRequest = compileValidator(billing.reissueStartRequestSchema, 'reissue request');
export const validateReissueStart = compileValidator(billing.reissueStartSchema, 'reissue start');
export const validateReissueCompleteRequest = compileValidator(
  billing.reissueCompleteRequestSchema,
  'reissue completion',
);
export const validateKeyRevokeRequest = compileValidator(billing.keyRevokeRequestSchema, 'key revocation');
export const validateKeyRevokeReply = compileValidator(billing.keyRevokeReplySchema, 'key revocation reply');
export const validateKeyRevoked = compileValidator(billing.keyRevokedSchema, 'key revoked');
export const validateSessionEndRequest = compileValidator(billing.sessionEndRequestSchema, 'session end request');
export const validateSessionEndReply = compileValidator(billing.sessionEndReplySchema, 'session end reply');
export const validateSessionEnded = compileValidator(billing.sessionEndedSchema, 'session ended');
export const validateCommandReply = compileValidator(billing.commandReplySchema, 'command reply');
export const validateSubscriptionFact = compileValidator(billing.subscriptionFactSchema, 'subscription fact');
export const validateTierFact = compileValidator(billing.tierFactSchema, 'tier fact');

export type { BacktestRequest, AnalyticsRequest, BacktestResult, BacktestSummary, Analytics, Distribution, ExitReason } from './lab';
export { CHUNK_HEADER, CHUNKS_HEADER, CACHE_HEADER, CLIENT_HEADER, DEADLINE_HEADER, backtestRequestSchema, analyticsRequestSchema, backtestResultSchema, analyticsSchema } from './lab';

export const validateBacktestRequest = compileValidator(lab.backtestRequestSchema, 'backtest request');
export const validateAnalyticsRequest = compileValidator(lab.analyticsRequestSchema, 'analytics request');
export const validateBacktestResult = compileValidator(lab.backtestResultSchema, 'backtest result');
export const validateAnalytics = compileValidator(lab.analyticsSchema, 'analytics');

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

export const validateStrategyCreateBody = compileValidator(strategies.strategyCreateBodySchema, 'strategy');
export const validateStrategyUpdateBody = compileValidator(strategies.strategyUpdateBodySchema, 'strategy update');
export const validateStrategyOwnerRequest = compileValidator(strategies.strategyOwnerRequestSchema, 'strategy list request');
export const validateStrategyCreateRequest = compileValidator(strategies.strategyCreateRequestSchema, 'strategy');
export const validateStrategyIdRequest = compileValidator(strategies.strategyIdRequestSchema, 'strategy request');
export const validateStrategyUpdateRequest = compileValidator(strategies.strategyUpdateRequestSchema, 'strategy update');
export const validateStrategyReply = compileValidator(strategies.strategyReplySchema, 'strategy reply');
export const validateStrategyDetailReply = compileValidator(strategies.strategyDetailReplySchema, 'strategy detail');
export const validateStrategyListReply = compileValidator(strategies.strategyListReplySchema, 'strategy list');
export const validateStrategyDeleteReply = compileValidator(strategies.strategyDeleteReplySchema, 'strategy deletion');
export const validateForwardStats = compileValidator(strategies.forwardStatsSchema, 'forward stats');
export const validateLeaderboardRequest = compileValidator(strategies.leaderboardRequestSchema, 'leaderboard request');
export const validateLeaderboard = compileValidator(strategies.leaderboardSchema, 'leaderboard');
export const validateLeaderboardEntryRequest = compileValidator(strategies.leaderboardEntryRequestSchema, 'leaderboard entry request');
export const validateLeaderboardDetail = compileValidator(strategies.leaderboardDetailSchema, 'leaderboard entry');
