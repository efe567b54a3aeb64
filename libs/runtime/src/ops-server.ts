import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@gridlab/logger';
import type { Metrics } from './metrics';

/** One dependency check: resolves with optional details when healthy, throws when not. */
export type ReadinessCheck = () => Promise<Record<string, unknown> | void>;

export interface ReadinessReport {
  readonly ready: boolean;
  /**
   * `degraded`: ready, but an optional dependency (one the service fails soft without) is
   * down or an advisory check fails.
   */
  readonly status: 'ok' | 'degraded' | 'unready';
  /** The failing optional and advisory checks, when there are any. */
  readonly degraded?: string[];
  readonly checks: Record<string, { ok: boolean; error?: string; advisory?: true; [detail: string]: unknown }>;
}

const ADVISORY = Symbol('advisory readiness check');

/**
 * Marks a check as advisory: its failure is reported (`ok: false`, `advisory: true`, and
 * the check's name in `degraded`) without making the service unready, for conditions
 * that taking this replica out of rotation would not cure (an upstream feed gone stale).
 */
export function advisory(check: ReadinessCheck): ReadinessCheck {
  return Object.assign(() => check(), { [ADVISORY]: true });
}

function isAdvisory(check: ReadinessCheck): boolean {
  return (check as { [ADVISORY]?: boolean })[ADVISORY] === true;
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
    const degraded: string[] = [];
    let ready = true;
    names.forEach((name, i) => {
      const result = results[i]!;
      const advisoryCheck = isAdvisory(checks[name]!);
      report[name] = advisoryCheck && !result.ok ? { ...result, advisory: true } : result;
      if (result.ok) return;
      if (advisoryCheck || optional.includes(name)) degraded.push(name);
      else ready = false;
    });
    const status = !ready ? 'unready' : degraded.length > 0 ? 'degraded' : 'ok';
    return degraded.length === 0 ? { ready, status, checks: report } : { ready, status, degraded, checks: report };
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
