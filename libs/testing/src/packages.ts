import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Builds a workspace package (its `build` script) and installs it into `consumer` as npm
 * would install it from the registry: `pnpm pack` (publishConfig applied, `workspace:`
 * ranges resolved, only `files`) extracted into `consumer/node_modules/<name>`. Resolves
 * with the published package.json.
 */
export async function installPacked(packageDir: string, consumer: string): Promise<Record<string, unknown>> {
  const env = { ...process.env, COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' };
  await run('corepack', ['pnpm', 'run', '--silent', 'build'], { cwd: packageDir, env });
  const packs = await mkdtemp(join(tmpdir(), 'gridlab-pack-'));
  try {
    await run('corepack', ['pnpm', 'pack', '--pack-destination', packs], { cwd: packageDir, env });
    const { name, version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { name: string; version: string };
    const tarball = join(packs, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
    const into = join(consumer, 'node_modules', name);
    await mkdir(into, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
    return JSON.parse(await readFile(join(into, 'package.json'), 'utf8')) as Record<string, unknown>;
  } finally {
    await rm(packs, { recursive: true, force: true });
  }
}

/** Links an installed dependency (as the workspace resolves it from `fromDir`) into `consumer/node_modules`. */
export async function linkDependency(name: string, fromDir: string, consumer: string): Promise<void> {
  const target = realpathSync(join(fromDir, 'node_modules', name));
  const link = join(consumer, 'node_modules', name);
  await mkdir(dirname(link), { recursive: true });
  await symlink(target, link);
}
