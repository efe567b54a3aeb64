/**
 * The docs name files of the repository (`libs/platform/src/platform.ts`, links such as
 * [decisions.md](decisions.md)); each must exist, so a move or a rename that forgets the
 * docs fails here instead of leaving a reader at a dead end.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
/** Files that exist only after a command has run (`make bench` writes its results). */
const WRITTEN_BY_COMMANDS = new Set(['bench/results.json']);
const TOP_DIRS = 'libs|services|tools|apps|docs|scripts|deploy|k8s|bench|test-e2e';
const CODE_PATH = new RegExp(`\`((?:${TOP_DIRS})/[A-Za-z0-9_./-]+)\``, 'g');
const LINK = /\]\(([^)#\s]+)(?:#[^)]*)?\)/g;

function docs(): string[] {
  const inDocs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const readmes = [
    'README.md',
    'CHANGELOG.md',
    ...['libs', 'services', 'tools', 'apps'].flatMap((dir) =>
      readdirSync(join(ROOT, dir))
        .map((p) => `${dir}/${p}/README.md`)
        .filter((p) => existsSync(join(ROOT, p))),
    ),
  ];
  return [...readmes, ...inDocs];
}

/** Every repository path a document names that does not exist. */
export function deadReferences(doc: string, text: string): string[] {
  const dead: string[] = [];
  for (const [, raw] of text.matchAll(CODE_PATH)) {
    const path = raw!.replace(/[.,:;]+$/, '');
    if (!WRITTEN_BY_COMMANDS.has(path) && !existsSync(join(ROOT, path))) dead.push(path);
  }
  for (const [, target] of text.matchAll(LINK)) {
    if (/^[a-z]+:/.test(target!)) continue;
    if (!existsSync(join(ROOT, dirname(doc), target!))) dead.push(target!);
  }
  return dead;
}

describe('paths named by the docs', () => {
  it.each(docs())('%s names only files that exist', (doc) => {
    expect(deadReferences(doc, readFileSync(join(ROOT, doc), 'utf8'))).toEqual([]);
  });

  it('finds a dead path and a dead link', () => {
    expect(deadReferences('docs/x.md', 'see `libs/platform/src/gone.ts` and [a](missing.md), [b](architecture.md), [c](https://x.example)')).toEqual([
      'libs/platform/src/gone.ts',
      'missing.md',
    ]);
  });
});
