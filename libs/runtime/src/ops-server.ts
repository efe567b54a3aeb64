import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@gridlab/logger';
import type { Metrics } from './metrics';

/** One dependency check: resolves with optional details when healthy, throws when not. */
export type ReadinessCheck = () => Promise<Record<string, unknown> | void>;

export interface ReadinessReport {
  readonly ready: boolean;
  /** `degraded`: ready, but an optional dependency (one the service fails soft without) is down. */
  readonly status: 'ok' | 'degraded' | 'unready';
  readonly checks: Record<string, { ok: boolean; error?: string; [detail: string]: unknown }>;
}

export interface OpsServer {
  readonly port: number;
  readiness(): Promise<ReadinessReport>;
  close(): Promise<void>;
}

interface OpsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly checks: Readonly<Record<string, ReadinessCheck>>;
  /** Checks whose failure makes the service `degraded` but still ready. */
  readonly optional?: readonly string[];
}

const CHECK_TIMEOUT_MS = 2000;

async function runCheck(check: ReadinessCheck): Promise<{ ok: boolean; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('check timed out')), CHECK_TIMEOUT_MS);
    });
    const details = await Promise.race([check(), timeout]);
    return { ok: true, ...(details ?? {}) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : 'failed' };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs every check (each bounded by a timeout) and reports them together. The service is
 * ready when every check but the `optional` ones passes; a failing optional check makes
 * it `degraded` (still ready: the service is designed to fail soft without it).
 */
export function readinessOf(checks: Readonly<Record<string, ReadinessCheck>>, optional: readonly string[] = []): () => Promise<ReadinessReport> {
  return async () => {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((name) => runCheck(checks[name]!)));
    const report: ReadinessReport['checks'] = {};
    names.forEach((name, i) => (report[name] = results[i]!));
    const ready = names.every((name, i) => results[i]!.ok || optional.includes(name));
    const status = !ready ? 'unready' : results.every((r) => r.ok) ? 'ok' : 'degraded';
    return { ready, status, checks: report };
  };
}

/**
 * Serves `/healthz` (the process is alive), `/readyz` (every dependency check passes;
 * 503 with per-check details otherwise) and `/metrics` (Prometheus text format).
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const readiness = readinessOf(options.checks, options.optional);

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET') return send(405, 'application/json', '{"error":"method not allowed"}');
    if (path === '/healthz') return send(200, 'application/json', '{"status":"ok"}');
    if (path === '/readyz') {
      readiness().then(
        (report) => send(report.ready ? 200 : 503, 'application/json', JSON.stringify(report)),
        () => send(503, 'application/json', '{"ready":false}'),
      );
      return;
    }
    if (path === '/metrics') {
      options.metrics.metrics().then(
        (text) => send(200, options.metrics.contentType, text),
        (error: unknown) => {
          options.logger.error('metrics collection failed', { err: error });
          send(500, 'text/plain', 'metrics unavailable');
        },
      );
      return;
    }
    send(404, 'application/json', '{"error":"not found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info('ops endpoints listening', { host: options.host, port });
  return {
    port,
    readiness,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
