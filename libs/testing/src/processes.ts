import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './cli';

/** A TCP port free at the time of asking, on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A service running as its own process, as in production. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  /** SIGTERM (graceful) or SIGKILL, resolved once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `entry` (a path from the workspace root) with `node --import tsx` and the
 * given environment, and resolves once `ready()` is true (polled every 100 ms).
 */
export async function startService(
  entry: string,
  env: NodeJS.ProcessEnv,
  ready: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(WORKSPACE_ROOT, entry)], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, ...env },
    // GRIDLAB_TEST_SERVICE_LOGS=1 shows the services' logs while debugging a test.
    stdio: ['ignore', process.env['GRIDLAB_TEST_SERVICE_LOGS'] === '1' ? 'inherit' : 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}: ${stderr}`);
    if (await ready().catch(() => false)) return { child, stop };
    if (Date.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(`${entry} was not ready within ${timeoutMs} ms: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** True when GET `url` answers 2xx. */
export async function answersOk(url: string): Promise<boolean> {
  return (await fetch(url)).ok;
}
