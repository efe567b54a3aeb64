import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { nodeArgs } from './build';
import { WORKSPACE_ROOT } from './paths';

/** A TCP port free at the time of asking, on the loopback interface. */
/**
 * Lowest and highest port handed out: below the kernel's ephemeral range (32768 and up by
 * default), which outgoing connections (to PostgreSQL, NATS, Redis) draw their local ports
 * from: a port freed there can be taken by a connection before the service binds it.
 */
const PORT_FLOOR = 22_000;
const PORT_CEILING = 32_000;

/** A TCP port free on 127.0.0.1 now, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = PORT_FLOOR + Math.floor(Math.random() * (PORT_CEILING - PORT_FLOOR));
    if (await canListen(port)) return port;
    if (attempt > 200) throw new Error('no free port found');
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A service running as its own process, as in production. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far (started with `captureOutput`; else empty). */
  output(): string;
  /** SIGTERM (graceful) or SIGKILL, resolved once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartOptions {
  /** Keep everything the process writes, stdout and stderr, for `output()` (a test that reads its log lines). */
  readonly captureOutput?: boolean;
}

/**
 * Starts `entry` (a service's source path from the workspace root; its bundle when built,
 * see build.ts) with the given environment, and resolves once `ready()` is true (polled
 * every 100 ms).
 */
export function startService(entry: string, env: NodeJS.ProcessEnv, ready: () => Promise<boolean>, timeoutMs = 30_000, options: StartOptions = {}): Promise<ServiceProcess> {
  return startNode(entry, nodeArgs(entry), WORKSPACE_ROOT, env, ready, timeoutMs, undefined, options);
}

/** A numeric user and group to run a process as (only a root test runner can switch). */
export interface ProcessUser {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Starts `node <args>` in `cwd` (a compiled service: `['dist/main.js']`), resolved once
 * `ready()` is true; `name` names it in errors. With `user`, the process runs as that
 * user and group, as a container's `USER` would.
 */
export async function startNode(
  name: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ready: () => Promise<boolean>,
  timeoutMs = 30_000,
  user?: ProcessUser,
  options: StartOptions = {},
): Promise<ServiceProcess> {
  const entry = name;
  // GRIDLAB_TEST_SERVICE_LOGS=1 shows the services' logs while debugging a test.
  const showLogs = process.env['GRIDLAB_TEST_SERVICE_LOGS'] === '1';
  const capture = options.captureOutput === true;
  const child = spawn(process.execPath, [...args], {
    cwd,
    env: { ...process.env, ...env },
    ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
    stdio: ['ignore', capture ? 'pipe' : showLogs ? 'inherit' : 'ignore', 'pipe'],
  });
  let stderr = '';
  let output = '';
  // Both streams are pipes when asked for; the spawn's types cannot tell which.
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
    if (capture) output += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (showLogs) process.stdout.write(chunk);
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
    if (await ready().catch(() => false)) return { child, stop, output: () => output };
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
