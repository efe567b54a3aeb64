import { connectBus, type NatsConnection } from '@gridlab/bus';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createLogger, redactUrls, type Logger, type LogLevel } from '@gridlab/logger';
import {
  createMetrics,
  natsCheck,
  postgresCheck,
  readinessOf,
  startOpsServer,
  type ReadinessReport,
  type Metrics,
  type ReadinessCheck,
} from '@gridlab/runtime';
import { Resources, stopAndExit, stopOnSignals } from './resources';

/** The shared settings (see serviceFields in @gridlab/config). */
export interface PlatformConfig {
  readonly DATABASE_URL: string;
  readonly NATS_URL: string;
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
  /**
   * Checks the service wires later (platform.check) on what it acquires after the
   * platform, by name, each with why it fails until then: /readyz never reports the
   * service ready without them.
   */
  readonly pendingChecks?: Readonly<Record<string, string>>;
  /** Names of checks the service fails soft without: their failure reports `degraded`, still ready. */
  readonly optionalChecks?: readonly string[];
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
  /** Aborted when stop() begins (SIGTERM): start-up steps still waiting give up. */
  readonly signal: AbortSignal;
  /**
   * Registers `resource`, acquired now, with how to release it, and returns it: stop()
   * releases the service's resources in reverse order of acquisition, then the ops server,
   * NATS and the pool. Once stopping has begun it releases the resource at once and throws.
   */
  own<T>(name: string, resource: T, release: (resource: T) => unknown): T;
  /** Sets the readiness check `name` (one declared in pendingChecks, or a new one). */
  check(name: string, check: ReadinessCheck): void;
  /** Releases everything in reverse order (what SIGTERM does, without ending the process); idempotent. */
  stop(): Promise<void>;
}

export async function startPlatform(service: string, config: PlatformConfig, options: PlatformOptions): Promise<Platform> {
  const logger = options.logger ?? createLogger({ service, level: config.LOG_LEVEL });
  const metrics = options.metrics ?? createMetrics(service);
  const resources = new Resources(logger);
  // Before anything is acquired: SIGTERM during start-up releases what is held by then.
  if (options.signals ?? true) stopOnSignals(resources, logger);
  try {
    if (options.migrate !== undefined) {
      await runMigrations({ databaseUrl: config.DATABASE_URL, ...options.migrate, logger });
    }
    const pool = resources.own('postgres', createPool(config.DATABASE_URL, { max: options.poolSize ?? 4, applicationName: service }), (p) => p.end());
    const nc = resources.own('nats', await connectBus(busOptions(service, config, logger)), (c) => c.drain());
    // One record the ops server reads at every /readyz, so checks wired later count at once.
    const checks: Record<string, ReadinessCheck> = { postgres: postgresCheck(pool), nats: natsCheck(nc), ...options.checks, ...pendingChecks(options.pendingChecks) };
    const optional = options.optionalChecks ?? [];
    if (options.ops !== undefined) resources.own('ops server', await startOpsServer({ ...options.ops, logger, metrics, checks, optional }), (ops) => ops.close());
    return {
      logger,
      metrics,
      pool,
      nc,
      readiness: readinessOf(checks, optional),
      signal: resources.signal,
      own: (name, resource, release) => resources.own(name, resource, release),
      check: (name, check) => void (checks[name] = check),
      stop: () => resources.stop(),
    };
  } catch (error) {
    // What was acquired before the failure is released (each failure logged there).
    await resources.stop().catch(() => undefined);
    throw error;
  }
}

function busOptions(service: string, config: PlatformConfig, logger: Logger): Parameters<typeof connectBus>[0] {
  return {
    servers: config.NATS_URL,
    name: service,
    logger,
    ...(config.NATS_USER === undefined || config.NATS_USER === '' ? {} : { user: config.NATS_USER, pass: config.NATS_PASSWORD ?? '' }),
  };
}

function pendingChecks(pending: Readonly<Record<string, string>> = {}): Record<string, ReadinessCheck> {
  return Object.fromEntries(Object.entries(pending).map(([name, reason]) => [name, () => Promise.reject(new Error(reason))]));
}

/** Starts the platform of the service runService runs. */
export type StartPlatform = (config: PlatformConfig, options: PlatformOptions) => Promise<Platform>;

/**
 * The entry of a service process: `main` loads the config, starts the platform through
 * `start` and wires the service on it. A start-up that fails part-way writes why to
 * stderr, releases what the platform holds (in reverse) and exits 1; one cut short
 * because shutdown began (SIGTERM while a step was waiting) leaves the exit to that
 * shutdown.
 */
export function runService(service: string, main: (start: StartPlatform) => Promise<void>): void {
  let platform: Platform | null = null;
  const start: StartPlatform = async (config, options) => (platform = await startPlatform(service, config, options));
  main(start).catch(async (error: unknown) => {
    const started: Platform | null = platform;
    if (started?.signal.aborted === true) return;
    // Not a log line, so redacted here: a failure's message may quote a URL with its credentials.
    process.stderr.write(`${service}: ${redactUrls(error instanceof Error ? error.message : String(error))}\n`);
    if (started === null) process.exit(1);
    await stopAndExit(() => started.stop(), started.logger, 1);
  });
}
