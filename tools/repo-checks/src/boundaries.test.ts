/**
 * The architecture's boundaries (.dependency-cruiser.cjs and the SQL ownership rule of
 * sql-ownership.ts) hold on the repository, and each rule fails on a deliberate
 * violation, built in a scratch tree with the repository's own configuration.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { foreignSql } from './sql-ownership';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
}

async function cruise(cwd: string, paths: readonly string[]): Promise<Violation[]> {
  // Exits non-zero when it finds violations; the JSON report is on stdout either way.
  const result = await run(process.execPath, [DEPCRUISE, ...paths, '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string }) => {
      if (error.stdout === undefined || error.stdout === '') throw new Error(`dependency-cruiser failed: ${error.stderr ?? ''}`);
      return { stdout: error.stdout };
    },
  );
  return (JSON.parse(result.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** An import statement of a fixture source. */
function importing(what: string, from: string): string {
  return `import ${what} from '${from}';\n`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return entry.endsWith('.ts') && !entry.endsWith('.test.ts') ? [path] : [];
  });
}

describe('architecture boundaries', () => {
  it('the repository has no dependency violation', async () => {
    const violations = await cruise(ROOT, ['libs', 'services', 'tools', 'apps', 'bench', 'test-e2e', 'deploy']);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it('no package spells SQL naming a schema it does not own', () => {
    const files = ['libs', 'services', 'tools'].flatMap((top) => readdirSync(join(ROOT, top)).flatMap((pkg) => sourceFiles(join(ROOT, top, pkg, 'src'))));
    const foreign = files.flatMap((file) => foreignSql(relative(ROOT, file), readFileSync(file, 'utf8')));
    expect(foreign.map((f) => `${f.file}:${f.line} ${f.table}`)).toEqual([]);
  });

  it('the SQL rule finds a foreign schema in any statement form, and allows the owners', () => {
    expect(foreignSql('services/lab-backtest/src/a.ts', "pool.query('SELECT max(id) FROM indexer.rounds')")).toEqual([{ file: 'services/lab-backtest/src/a.ts', line: 1, table: 'indexer.rounds' }]);
    expect(foreignSql('libs/lab-store/src/a.ts', 'x\nAND EXISTS (SELECT 1 FROM billing.subscribers b)').map((f) => f.line)).toEqual([2]);
    expect(foreignSql('services/event-log/src/a.ts', 'COPY billing.facts TO STDOUT; INSERT INTO events.events')).toHaveLength(1);
    expect(foreignSql('libs/rounds-store/src/a.ts', 'COPY (SELECT id FROM indexer.rounds) TO STDOUT')).toEqual([]);
    expect(foreignSql('services/billing/src/a.ts', 'UPDATE billing.subscribers SET x = 1')).toEqual([]);
  });

  it('every rule fails on a deliberate violation', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'gridlab-boundaries-'));
    const write = (path: string, text: string): void => {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    };
    try {
      cpSync(join(ROOT, '.dependency-cruiser.cjs'), join(scratch, '.dependency-cruiser.cjs'));
      write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'preserve', moduleResolution: 'bundler', strict: true } }));
      mkdirSync(join(scratch, 'node_modules'));
      for (const dep of ['ajv', 'yaml', 'pg']) symlinkSync(dirname(require.resolve(`${dep}/package.json`, { paths: [join(ROOT, 'libs/contracts'), join(ROOT, 'tools/repo-checks'), join(ROOT, 'libs/db')] })), join(scratch, 'node_modules', dep));
      write('services/a/package.json', JSON.stringify({ name: 'a', dependencies: { pg: '*' }, devDependencies: { yaml: '*' } }));
      write('services/b/package.json', JSON.stringify({ name: 'b' }));
      write('libs/db/package.json', JSON.stringify({ name: 'db' }));
      write('libs/l/package.json', JSON.stringify({ name: 'l' }));
      write('services/b/src/x.ts', 'export const x = 1;\n');
      write('libs/db/src/index.ts', 'export const connect = (): number => 1;\n');
      // (Fixture sources name packages through `importing`, so package-deps.test.ts does not take them for this package's imports.)
      write('services/a/src/adapters/db.ts', `${importing('{ Pool }', 'pg')}export const pool = (): Pool => new Pool();\n`);
      // One file per rule.
      write('services/a/src/to-service.ts', "import { x } from '../../b/src/x';\nexport const y = x;\n");
      write('libs/l/src/index.ts', "import { x } from '../../../services/b/src/x';\nexport const y = x;\n");
      write('services/a/src/app/use.ts', "import { pool } from '../adapters/db';\nexport const p = pool;\n");
      write('services/a/src/app/client.ts', `${importing('{ Pool }', 'pg')}export const p = (): Pool => new Pool();\n`);
      write('services/a/src/app/store.ts', "import { connect } from '../../../../libs/db/src/index';\nexport const c = connect;\n");
      write('services/a/src/app/store-type.ts', "import type { connect } from '../../../../libs/db/src/index';\nexport type C = typeof connect;\n");
      write('services/a/src/domain/adapter.ts', "import { pool } from '../adapters/db';\nexport const p = pool;\n");
      write('services/a/src/domain/core.ts', `${importing('{ readFileSync }', 'node:fs')}export const r = readFileSync;\n`);
      write('services/a/src/domain/lib.ts', "import { connect } from '../../../../libs/db/src/index';\nexport const c = connect;\n");
      write('services/a/src/domain/lib-type.ts', "import type { connect } from '../../../../libs/db/src/index';\nexport type C = typeof connect;\n");
      write('services/a/src/undeclared.ts', `${importing('Ajv', 'ajv')}export const a = Ajv;\n`);
      write('services/a/src/dev.ts', `${importing('{ parse }', 'yaml')}export const p = parse;\n`);
      write('services/a/src/missing.ts', "import { m } from './nowhere';\nexport const n = m;\n");
      write('libs/client/package.json', JSON.stringify({ name: 'client' }));
      write('libs/client/src/index.ts', 'export const api = 1;\n');
      write('apps/w/package.json', JSON.stringify({ name: 'w' }));
      write('apps/w/src/ok.ts', "import { api } from '../../../libs/client/src/index';\nexport const a = api;\n");
      write('apps/w/src/server-lib.ts', "import { connect } from '../../../libs/db/src/index';\nexport const c = connect;\n");

      const found = (await cruise(scratch, ['libs', 'services', 'apps'])).map((v) => `${v.rule.name}: ${v.from}`).sort();
      expect(found).toEqual(
        [
          'dashboard-through-the-client: apps/w/src/server-lib.ts',
          'declared-dependencies: services/a/src/undeclared.ts',
          'app-through-ports: services/a/src/app/client.ts',
          'app-through-ports: services/a/src/app/store.ts',
          'no-app-to-adapters: services/a/src/app/use.ts',
          'no-dev-dependency-in-production-code: services/a/src/dev.ts',
          'no-lib-to-service: libs/l/src/index.ts',
          'no-service-to-service: services/a/src/to-service.ts',
          'not-to-unresolvable: services/a/src/missing.ts',
          'pure-domain: services/a/src/domain/adapter.ts',
          'pure-domain-core: services/a/src/domain/core.ts',
          'pure-domain-libs: services/a/src/domain/lib.ts',
        ].sort(),
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('docs/architecture.md', () => {
  it('shows the current package graph (else run `node scripts/dependency-graph.mjs --write`)', async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'scripts/dependency-graph.mjs')], { cwd: ROOT });
    expect(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')).toContain(`<!-- dependency-graph:start -->\n${stdout}<!-- dependency-graph:end -->`);
  });
});
