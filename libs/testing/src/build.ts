import { join } from 'node:path';
import { WORKSPACE_ROOT } from './paths';

/**
 * How a test starts one of the workspace's programs (`entry`, a source path from the
 * workspace root): when the integration tests' global setup has built the bundles
 * (`scripts/build.mjs --local`, into GRIDLAB_BUILD_DIR), the bundle, as `make start` and
 * production run it; else the source under tsx (a test run without that setup).
 */
export function nodeArgs(entry: string): string[] {
  const buildDir = process.env['GRIDLAB_BUILD_DIR'];
  const target = buildTarget(entry);
  if (buildDir === undefined || buildDir === '' || target === undefined) return ['--import', 'tsx', join(WORKSPACE_ROOT, entry)];
  return ['--enable-source-maps', join(buildDir, target, 'main.js')];
}

/** The build's name for a program's entry point (scripts/build.mjs), if it is one. */
export function buildTarget(entry: string): string | undefined {
  if (entry === 'deploy/local/run-suite.ts') return 'suite';
  return /^(?:services|tools)\/([\w-]+)\/src\/main\.ts$/.exec(entry)?.[1];
}
