/**
 * Process plumbing every service shares: the operations HTTP endpoints (`/healthz`,
 * `/readyz`, `/metrics`), dependency checks, metrics and start-up retries (the ordered
 * shutdown is @gridlab/platform's).
 */
export { startOpsServer, readinessOf, advisory, type OpsServer, type ReadinessCheck, type ReadinessReport } from './ops-server';
export { createMetrics, consumerMetrics, writerLockGauge, type Metrics } from './metrics';
export { postgresCheck, natsCheck, redisCheck } from './checks';
export { retryUntilDone } from './retry';
export { repeatEvery } from './repeat';
