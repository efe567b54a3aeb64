/**
 * Process bootstrap shared by the services: one call gives a service its logger,
 * metrics registry, PostgreSQL pool (after migrating its schema) and NATS connection,
 * serves /healthz, /readyz (with real dependency checks) and /metrics, and owns what the
 * service acquires, releasing it all in reverse order on SIGTERM. Business wiring stays
 * in each service's main.ts.
 */
export { runService, startPlatform, type Platform, type PlatformConfig, type PlatformOptions, type StartPlatform } from './platform';
export { holdWriterLock } from './writer-lock';
export { runSingleWriter, type CatchUpWriter, type SingleWriterOptions, type WakeUp } from './single-writer';
