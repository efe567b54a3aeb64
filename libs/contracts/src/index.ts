/**
 * The suite's contracts: NATS names (subjects, streams, buckets), message types and
 * their ajv-validated JSON schemas. Producers validate before publishing, consumers
 * after receiving.
 */
import { addSchema, compileValidator } from './validate';
import { keySharedSchema, liveSnapshotSchema, logEventSchema, roundOpenedSchema, roundSchema } from './schemas';

export { natsNames, DUPLICATE_WINDOW_MS, CORRELATION_HEADER, type NatsNames } from './names';
export type { Round, LiveSnapshot, LiveStatus, RoundOpened, KeyShared, LogEvent, EventKind } from './messages';
export { EVENT_KINDS } from './messages';
export { roundSchema, liveSnapshotSchema, roundOpenedSchema, keySharedSchema, logEventSchema } from './schemas';
export { compileValidator, type Validator } from './validate';
export { isDateTime } from './date-time';

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
  IssuedKeyReply,
  ReissueStartRequest,
  ReissueStart,
  ReissueCompleteRequest,
  KeyRevokeRequest,
  KeyRevokeReply,
  CommandError,
  CommandReply,
  SubscriptionFact,
  TierFact,
} from './billing';
import * as billing from './billing';
export {
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
export const validateCommandReply = compileValidator<billing.CommandReply<unknown>>(billing.commandReplySchema, 'command reply');
export const validateSubscriptionFact = compileValidator<billing.SubscriptionFact>(billing.subscriptionFactSchema, 'subscription fact');
export const validateTierFact = compileValidator<billing.TierFact>(billing.tierFactSchema, 'tier fact');
