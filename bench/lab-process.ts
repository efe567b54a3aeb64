/**
 * lab-backtest's process settings, for benches that measure its code: the environment its
 * deployment gives it (k8s/base/lab-backtest.yaml, deploy/local/run-suite.ts), and a way
 * to run a bench's measurements in a process started with that environment (glibc reads
 * GLIBC_TUNABLES once, when a process starts, so the bench's own process cannot take it on).
 */
import { spawn } from 'node:child_process';
import type { BenchFigure } from './types';

/** The history and the engine's record arrays on transparent huge pages (docs/operations.md). */
export const LAB_BACKTEST_ENV = { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' } as const;

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
