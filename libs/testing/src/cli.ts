import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** Where the workspace root is, for tests that run its commands. */
export const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');
const CLI = join(WORKSPACE_ROOT, 'tools', 'cli', 'src', 'main.ts');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the `gridlab` command (what `pnpm -s gridlab …` runs) with extra environment,
 * through this Node binary, so tests do not depend on a `pnpm` shim on PATH.
 */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI, ...args],
      { cwd: WORKSPACE_ROOT, env: { ...process.env, ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
