import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A copy of a schema's migrations as an earlier release had them: those up to `last` (a file name), for upgrade tests. */
export interface EarlierMigrations {
  readonly dir: string;
  remove(): void;
}

export function migrationsThrough(dir: string, last: string): EarlierMigrations {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  if (!files.includes(last)) throw new Error(`no migration ${last} in ${dir}`);
  const earlier = mkdtempSync(join(tmpdir(), 'gridlab-migrations-'));
  for (const f of files) if (f <= last) cpSync(join(dir, f), join(earlier, f));
  return { dir: earlier, remove: () => rmSync(earlier, { recursive: true, force: true }) };
}
