/**
 * lab-backtest's process settings, for benches that measure its code: the environment its
 * deployment gives it (k8s/base/lab-backtest.yaml, deploy/local/run-suite.ts), a way to
 * run a bench's measurements in a process started with that environment (glibc reads
 * GLIBC_TUNABLES once, when a process starts, so the bench's own process cannot take it
 * on), and the service as its image runs it.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startNode, WORKSPACE_ROOT, type ServiceProcess } from '@gridlab/testing';
import type { BenchFigure } from './types';

/** The history and the engine's record arrays on transparent huge pages (docs/operations.md). */
export const LAB_BACKTEST_ENV = { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' } as const;

/** lab-backtest as its image holds it: the production bundle and its production dependencies. */
export interface DeployedLab {
  /** Starts `node --enable-source-maps dist/main.js` (the image's command) with `env` beside the image's and the manifest's. */
  start(env: NodeJS.ProcessEnv, ready: () => Promise<boolean>, timeoutMs: number): Promise<ServiceProcess>;
  remove(): void;
}

/**
 * Builds lab-backtest as deploy/docker/Dockerfile does (scripts/build.mjs, then
 * scripts/deploy-service.sh into a directory of its own): what a deployment runs, without
 * the tsx loader `make start` runs it with (~55 MB resident in the serving thread, more in
 * each worker).
 */
export async function deployLabBackTest(): Promise<DeployedLab> {
  const run = promisify(execFile);
  const dir = mkdtempSync(join(tmpdir(), 'gridlab-bench-lab-'));
  try {
    await run(process.execPath, ['scripts/build.mjs', 'lab-backtest'], { cwd: WORKSPACE_ROOT });
    await run(join(WORKSPACE_ROOT, 'scripts/deploy-service.sh'), ['lab-backtest', dir], { cwd: WORKSPACE_ROOT });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    start: (env, ready, timeoutMs) => startNode('lab-backtest (production bundle)', ['--enable-source-maps', 'dist/main.js'], dir, { NODE_ENV: 'production', ...LAB_BACKTEST_ENV, ...env }, ready, timeoutMs),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A module whose `measure` export gives figures. */
interface Measured {
  measure(): Promise<readonly BenchFigure[]>;
}

/** Runs `file`'s `measure()` in a child process with lab-backtest's environment; resolves with its figures. */
export function measureInLabProcess(file: string): Promise<readonly BenchFigure[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', __filename, file], {
      env: { ...process.env, ...LAB_BACKTEST_ENV },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${file} exited with ${code}`));
      try {
        resolve(JSON.parse(out) as BenchFigure[]);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

// The child: measure, print the figures as JSON on stdout (progress goes to stderr).
if (require.main === module) {
  void (async () => {
    const mod = (await import(process.argv[2]!)) as Measured | { default: Measured };
    const { measure } = 'measure' in mod ? mod : mod.default;
    process.stdout.write(JSON.stringify(await measure()));
  })().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
