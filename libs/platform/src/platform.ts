import { connectBus, type NatsConnection } from '@gridlab/bus';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createLogger, type Logger, type LogLevel } from '@gridlab/logger';
import {
  createMetrics,
  natsCheck,
  onShutdown,
  postgresCheck,
  readinessOf,
  startOpsServer,
  type ReadinessReport,
  type Metrics,
  type ReadinessCheck,
  type ShutdownStep,
} from '@gridlab/runtime';

/** The shared settings (see serviceFields in @gridlab/config). */
export interface PlatformConfig {
  readonly DATABASE_URL: string;
  readonly NATS_URL: string;
  /** This service's NATS user and password (empty: the server asks for none). */
  readonly NATS_USER?: string;
  readonly NATS_PASSWORD?: string;
  readonly LOG_LEVEL: LogLevel;
}

export interface PlatformOptions {
  /** Where /healthz, /readyz and /metrics are served; absent when the service serves them itself. */
  readonly ops?: { readonly host: string; readonly port: number };
  /** The service's own schema, migrated before anything else starts. */
  readonly migrate?: { readonly schema: string; readonly dir: string };
  readonly poolSize?: number;
  /** Readiness checks beyond PostgreSQL and NATS. */
  readonly checks?: Readonly<Record<string, ReadinessCheck>>;
  /** Names of checks the service fails soft without: their failure reports `degraded`, still ready. */
  readonly optionalChecks?: readonly string[];
  /** Stopped first on SIGTERM, in order, before the ops server, NATS and the pool. */
  readonly stopFirst?: readonly ShutdownStep[];
  /**
   * Whether SIGTERM and SIGINT stop the platform and end the process (default true). A
   * platform embedded in a test or a bench sets false and calls stop() itself.
   */
  readonly signals?: boolean;
  /** A logger or registry of the caller's (tests); by default the platform creates them. */
  readonly logger?: Logger;
  readonly metrics?: Metrics;
}

export interface Platform {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly pool: Pool;
  readonly nc: NatsConnection;
  /** The dependency checks, for a service that serves /readyz itself. */
  readonly readiness: () => Promise<ReadinessReport>;
  /** Runs the shutdown steps in order (what SIGTERM does, without ending the process). */
  stop(): Promise<void>;
}

export async function startPlatform(service: string, config: PlatformConfig, options: PlatformOptions): Promise<Platform> {
  const logger = options.logger ?? createLogger({ service, level: config.LOG_LEVEL });
  const metrics = options.metrics ?? createMetrics(service);
  if (options.migrate !== undefined) {
    await runMigrations({ databaseUrl: config.DATABASE_URL, ...options.migrate, logger });
  }
  const pool = createPool(config.DATABASE_URL, { max: options.poolSize ?? 4, applicationName: service });
  const nc = await connectBus({ servers: config.NATS_URL, name: service, logger, user: config.NATS_USER ?? '', pass: config.NATS_PASSWORD ?? '' });
  const checks = { postgres: postgresCheck(pool), nats: natsCheck(nc), ...options.checks };
  const optional = options.optionalChecks ?? [];
  const ops = options.ops === undefined ? null : await startOpsServer({ ...options.ops, logger, metrics, checks, optional });
  const steps: ShutdownStep[] = [
    ...(options.stopFirst ?? []),
    ...(ops === null ? [] : [{ name: 'ops server', run: () => ops.close() }]),
    { name: 'nats', run: () => nc.drain() },
    { name: 'postgres', run: () => pool.end() },
  ];
  if (options.signals ?? true) onShutdown(logger, steps);
  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      const failures: unknown[] = [];
      for (const step of steps) await step.run().catch((error: unknown) => failures.push(error));
      if (failures.length > 0) throw failures[0];
    })());
  return { logger, metrics, pool, nc, readiness: readinessOf(checks, optional), stop };
}
