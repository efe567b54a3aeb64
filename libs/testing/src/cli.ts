import { execFile, spawn } from 'node:child_process';
import { nodeArgs } from './build';
import { WORKSPACE_ROOT } from './paths';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the `gridlab` command (what `pnpm -s gridlab …` runs; its bundle when built, see
 * build.ts) with extra environment, through this Node binary, so tests do not depend on a `pnpm` shim on PATH.
 */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs('tools/cli/src/main.ts'), ...args],
      { cwd: WORKSPACE_ROOT, env: { ...process.env, ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A `gridlab` command left running (a stream it follows): the lines it has printed so far. */
export interface RunningCli {
  lines(): string[];
  stderr(): string;
  /** Interrupts it (SIGINT, as a person's Ctrl-C) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts the `gridlab` command, as runCli runs it, without waiting for it to end. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): RunningCli {
  const child = spawn(process.execPath, [...nodeArgs('tools/cli/src/main.ts'), ...args], { cwd: WORKSPACE_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    lines: () => out.split('\n').filter((line) => line !== ''),
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
