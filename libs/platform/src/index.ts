/**
 * Process bootstrap shared by the services: one call gives a service its logger,
 * metrics registry, PostgreSQL pool (after migrating its schema) and NATS connection,
 * serves /healthz, /readyz (with real dependency checks) and /metrics, and stops it all
 * in order on SIGTERM. Business wiring stays in each service's main.ts.
 */
export { startPlatform, type Platform, type PlatformConfig, type PlatformOptions } from './platform';
export { holdWriterLock } from './writer-lock';
