/**
 * The alert rules and the Grafana dashboard read what the services export:
 * every PromQL expression parses (the Prometheus project's own grammar), every metric it
 * selects is registered by some service (or is a default process metric of prom-client),
 * every alert has a runbook section in docs/operations.md, and the dashboard is well formed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'dist' || entry === 'test') return [];
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(entry) && !entry.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every metric name registered with prom-client in the services and libs. */
const EXPORTED = new Set(
  ['libs', 'services'].flatMap((top) =>
    readdirSync(join(ROOT, top)).flatMap((pkg) =>
      sources(join(ROOT, top, pkg, 'src')).flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        if (!text.includes('prom-client')) return [];
        return [...text.matchAll(/new (?:Counter|Gauge|Histogram|Summary)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g)].map((m) => m[1]!);
      }),
    ),
  ),
);
/** prom-client's default metrics (collectDefaultMetrics) that the dashboard reads. */
const DEFAULT_METRICS = /^(process_[a-z_]+|nodejs_[a-z0-9_]+)$/;

/** The metric names an expression selects; throws on a syntax error. */
function selectedMetrics(expr: string): string[] {
  const tree = parser.parse(expr);
  const names: string[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) throw new Error(`PromQL syntax error at ${cursor.from} in: ${expr}`);
    if (cursor.name === 'Identifier' && cursor.node.parent?.name === 'VectorSelector') names.push(expr.slice(cursor.from, cursor.to));
  } while (cursor.next());
  return names;
}

function unknownMetrics(expr: string): string[] {
  return selectedMetrics(expr)
    .map((name) => name.replace(/_(bucket|sum|count)$/, (suffix) => (EXPORTED.has(name) ? suffix : '')))
    .filter((name) => !EXPORTED.has(name) && !DEFAULT_METRICS.test(name));
}

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string; runbook_url: string };
}
const rules = (parse(readFileSync(join(ROOT, 'k8s/monitoring/prometheus-rules.yaml'), 'utf8')) as { spec: { groups: { rules: Rule[] }[] } }).spec.groups.flatMap((g) => g.rules);
const operations = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
const anchors = new Set([...operations.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')));

describe('the metric catalogue', () => {
  it('is read from the sources (and the checks below can fail)', () => {
    expect(EXPORTED.has('indexer_leader')).toBe(true);
    expect(EXPORTED.has('writer_lock_held')).toBe(true);
    expect(unknownMetrics('rate(indexer_no_such_metric_total[5m])')).toEqual(['indexer_no_such_metric_total']);
    expect(() => selectedMetrics('sum(rate(indexer_leader[5m])')).toThrow(/syntax error/);
  });
});

describe('alert rules', () => {
  it('cover what the operator must hear about', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        'BillingFactRelayBacklog',
        'ConsumerMessagesTerminated',
        'ConsumerRedeliveries',
        'GatewayLiveSnapshotStale',
        'GatewayRateLimitFallback',
        'IndexerGaps',
        'IndexerLagging',
        'IndexerNoLeader',
        'LabQueueSaturated',
        'SingleWriterWithoutLeader',
      ].sort(),
    );
  });

  it.each(rules.map((r) => [r.alert, r] as const))('%s parses, reads exported metrics and has a runbook', (_, rule) => {
    expect(unknownMetrics(rule.expr)).toEqual([]);
    expect(['critical', 'warning']).toContain(rule.labels.severity);
    expect(rule.annotations.summary.length).toBeGreaterThan(0);
    const anchor = rule.annotations.runbook_url.replace(/^docs\/operations\.md#/, '');
    expect(anchor).toBe(rule.alert.toLowerCase());
    expect(anchors.has(anchor)).toBe(true);
  });
});

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: { expr: string; refId: string }[];
}

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'k8s/monitoring/gridlab-dashboard.json'), 'utf8')) as { uid: string; title: string; panels: Panel[]; templating: { list: { name: string; type: string }[] } };

  it('is a dashboard with a Prometheus data source variable and unique panel ids', () => {
    expect(dashboard.uid).toBe('gridlab-suite');
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource' }));
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
  });

  it('queries only exported metrics, with expressions that parse', () => {
    const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
    expect(queries.length).toBeGreaterThan(20);
    for (const q of queries) expect({ ...q, unknown: unknownMetrics(q.expr) }).toEqual({ ...q, unknown: [] });
  });
});
