/**
 * The suite's contracts: NATS names (subjects, streams, buckets), message types and
 * their ajv-validated JSON schemas. Producers validate before publishing, consumers
 * after receiving.
 */
import { addSchema, compileValidator } from './validate';
import { keySharedSchema, liveSnapshotSchema, roundOpenedSchema, roundSchema } from './schemas';

export { natsNames, DUPLICATE_WINDOW_MS, CORRELATION_HEADER, type NatsNames } from './names';
export type { Round, LiveSnapshot, LiveStatus, RoundOpened, KeyShared } from './messages';
export { roundSchema, liveSnapshotSchema, roundOpenedSchema, keySharedSchema } from './schemas';
export { compileValidator, type Validator } from './validate';
export { isDateTime } from './date-time';

import type { KeyShared, LiveSnapshot, Round, RoundOpened } from './messages';

addSchema(roundSchema);
export const validateRound = compileValidator<Round>(roundSchema, 'round');
export const validateLiveSnapshot = compileValidator<LiveSnapshot>(liveSnapshotSchema, 'live snapshot');
export const validateRoundOpened = compileValidator<RoundOpened>(roundOpenedSchema, 'round opened');
export const validateKeyShared = compileValidator<KeyShared>(keySharedSchema, 'key shared');
