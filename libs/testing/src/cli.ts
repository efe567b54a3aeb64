import { execFile } from 'node:child_process';
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
