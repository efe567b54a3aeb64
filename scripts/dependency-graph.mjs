// The workspace's package graph (libs, services, tools, apps; tests left out) as a fenced
// Mermaid block, from dependency-cruiser with the repository's configuration.
//   node scripts/dependency-graph.mjs           prints it
//   node scripts/dependency-graph.mjs --write   puts it into docs/architecture.md (between
//                                               the dependency-graph markers; a test fails when stale)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MARKERS = /(<!-- dependency-graph:start -->\n)[\s\S]*?(<!-- dependency-graph:end -->)/;

export function dependencyGraph() {
  const mermaid = execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      ...['libs', 'services', 'tools', 'apps'],
      ...['--config', '.dependency-cruiser.cjs', '--output-type', 'mermaid'],
      ...['--collapse', '^(libs|services|tools|apps)/[^/]+', '--include-only', '^(libs|services|tools|apps)/', '--exclude', '(\\.test\\.ts$|/test/|/src/testing/)'],
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return '```mermaid\n' + mermaid.trim() + '\n```\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const graph = dependencyGraph();
  if (!process.argv.includes('--write')) process.stdout.write(graph);
  else {
    const file = join(root, 'docs/architecture.md');
    const doc = readFileSync(file, 'utf8');
    if (!MARKERS.test(doc)) throw new Error('docs/architecture.md has no dependency-graph markers');
    writeFileSync(file, doc.replace(MARKERS, (_, start, end) => start + graph + end));
  }
}
