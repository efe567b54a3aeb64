/**
 * The suite's contracts: NATS names (subjects, streams, buckets) and every wire shape,
 * each a TypeBox schema that is both the JSON Schema ajv validates against and the
 * TypeScript type. Producers validate before publishing, consumers after receiving; the
 * API documents' schemas are generated from these (tools/api-docs).
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import * as alerts from './alerts';
import * as billing from './billing';
import * as http from './http';
import * as lab from './lab';
import * as miners from './miners';
import * as rounds from './schemas';
import * as strategies from './strategies';
import { addSchemas } from './validate';

export { natsNames, DUPLICATE_WINDOW_MS, CORRELATION_HEADER, type NatsNames } from './names';
export type { Round, KnownRound, PayoutRule, RoundSource, LiveSnapshot, LiveGame, LiveStatus, RoundOpened, KeyShared, LogEvent, EventKind } from './schemas';
export { EVENT_KINDS, eventMatchesKind, isFullyKnown, roundSchema, liveGameSchema, liveSnapshotSchema, roundOpenedSchema, keySharedSchema, logEventSchema, payoutRuleSchema } from './schemas';
export { compileValidator, validatorOf, type Validator } from './validate';
export { dateTimeMs, isDateTime } from './date-time';
export { LAMPORTS_PER_SOL, ORE_BASE_UNITS } from './units';
export { Type, nullable, literals, described, type Static, type TSchema } from './kit';
export * from './http';
export * from './miners';
export * from './alerts';
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
  commandReplyValidator,
  eventValidator,
  message,
  type BusMessage,
  type CommandName,
  type EventName,
  type CommandSpec,
  type EventPayload,
  type Commands,
  type EventSpec,
  type ReplyHeader,
  type RequestOf,
  type ResultOf,
  type ServedBy,
  type Service,
} from './bus';

/** Every named wire shape (a schema with an `$id`): the documents' components, and what `$ref`s resolve to. */
export const NAMED_SCHEMAS: readonly TSchema[] = [rounds, billing, lab, strategies, http, miners, alerts].flatMap((module) =>
  Object.values(module).filter((v): v is TSchema => typeof v === 'object' && v !== null && Kind in v && typeof (v as TSchema).$id === 'string'),
);
addSchemas(NAMED_SCHEMAS);


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


export type { BacktestRequest, AnalyticsRequest, BacktestResult, BacktestSummary, Analytics, Distribution, ExitReason } from './lab';
export { CHUNK_HEADER, CHUNKS_HEADER, CACHE_HEADER, CLIENT_HEADER, DEADLINE_HEADER, backtestRequestSchema, analyticsRequestSchema, backtestResultSchema, analyticsSchema } from './lab';


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
  ForwardDecision,
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

