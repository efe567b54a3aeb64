import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes';

/**
 * PostgreSQL, Redis and NATS servers of a test's own on side ports (never the shared
 * ones), for tests that kill and restart them. Each is started from Debian's binaries.
 */
export interface Engine {
  readonly url: string;
  /** kill -9 (PostgreSQL: an immediate-mode stop, which is its crash), then start again on the same port and data. */
  crashAndRestart(): Promise<void>;
  /** kill -9 and stay down (an outage) until `start`. */
  crash(): Promise<void>;
  /** Starts again on the same port and data after `crash`. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port` (fails if `child` exits first). */
export async function untilListening(port: number, what: string, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await listening(port))) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function kill9(child: ChildProcess | null): Promise<void> {
  return new Promise((resolve) => {
    if (child === null || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** A server process restarted on the same port and data directory. */
async function processEngine(name: string, url: string, port: number, command: string, args: readonly string[], dir: string): Promise<Engine> {
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawn(command, [...args], { stdio: 'ignore' });
    await untilListening(port, name, child);
  };
  await start();
  return {
    url,
    crashAndRestart: async () => {
      await kill9(child);
      await start();
    },
    crash: () => kill9(child),
    start,
    stop: async () => {
      await kill9(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startRedisServer(): Promise<Engine> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gridlab-redis-'));
  return processEngine('redis-server', `redis://127.0.0.1:${port}`, port, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], dir);
}

export async function startNatsServer(): Promise<Engine> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gridlab-nats-'));
  return processEngine('nats-server', `nats://127.0.0.1:${port}`, port, process.env['NATS_SERVER_BIN'] ?? '/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], dir);
}

/** Debian's PostgreSQL binaries (the newest installed version). */
function postgresBin(tool: string): string {
  const versions = execFileSync('ls', ['/usr/lib/postgresql'], { encoding: 'utf8' }).trim().split('\n').sort((a, b) => Number(a) - Number(b));
  return `/usr/lib/postgresql/${versions.at(-1)}/bin/${tool}`;
}

export async function startPostgresServer(): Promise<Engine> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gridlab-pg-'));
  // PostgreSQL refuses to run as root: as root, its files and processes belong to `postgres`.
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: readonly string[]): void => {
    const [command, prefix] = asRoot ? ['runuser', ['-u', 'postgres', '--', postgresBin(tool)]] : [postgresBin(tool), []];
    execFileSync(command, [...(prefix), ...args], { stdio: 'pipe' });
  };
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })));
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
  const start = async (): Promise<void> => {
    run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
    await untilListening(port, 'postgres');
  };
  const crash = async (): Promise<void> => run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    crashAndRestart: async () => {
      await crash();
      await start();
    },
    crash,
    start,
    stop: async () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
