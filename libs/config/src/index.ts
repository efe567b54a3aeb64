/**
 * Typed configuration from environment variables: one schema per service, validated
 * at start, every bad key listed at once, secret values never echoed.
 */
export { loadConfig, type ConfigSchema, type ConfigOf, type Env } from './load-config';
export { str, int, num, bool, oneOf, list, type Field } from './fields';
export { serviceFields } from './service-fields';
export { bigRoundFields } from './big-round-fields';
