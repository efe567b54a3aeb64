/**
 * Process plumbing every service shares: the operations HTTP endpoints (`/healthz`,
 * `/readyz`, `/metrics`) and graceful shutdown on SIGTERM/SIGINT.
 */
export { startOpsServer, readinessOf, advisory, type OpsServer, type ReadinessCheck, type ReadinessReport } from './ops-server';
export { createMetrics, consumerMetrics, writerLockGauge, type Metrics } from './metrics';
export { onShutdown, type ShutdownStep } from './shutdown';
export { postgresCheck, natsCheck, redisCheck } from './checks';
export { retryUntilDone } from './retry';
export { repeatEvery } from './repeat';
