import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const K8S = join(__dirname, '..', '..', '..', 'k8s');
const SERVICES = ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-forward', 'lab-backtest'];

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

type Doc = { kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown>; resources?: string[] };
const docs: { file: string; doc: Doc }[] = yamlFiles(K8S).flatMap((file) =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]!.message}`);
    return { file, doc: d.toJSON() as Doc };
  }),
);

interface Container {
  livenessProbe?: unknown;
  readinessProbe?: unknown;
  resources?: { requests?: unknown; limits?: unknown };
}

describe('k8s manifests', () => {
  const deployments = docs.filter((d) => d.doc.kind === 'Deployment');

  it('has a Deployment for every service', () => {
    expect(deployments.map((d) => d.doc.metadata?.name).sort()).toEqual([...SERVICES].sort());
  });

  it.each(SERVICES)('%s has probes, resources and a non-root security context', (name) => {
    const deployment = deployments.find((d) => d.doc.metadata?.name === name)!.doc;
    const pod = (deployment.spec as { template: { spec: { securityContext?: { runAsNonRoot?: boolean }; containers: Container[] } } }).template.spec;
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    for (const c of pod.containers) {
      expect(c.livenessProbe).toBeDefined();
      expect(c.readinessProbe).toBeDefined();
      expect(c.resources?.requests).toBeDefined();
      expect(c.resources?.limits).toBeDefined();
    }
  });

  it('lists only existing files in every kustomization', () => {
    for (const { file, doc } of docs.filter((d) => d.file.endsWith('kustomization.yaml'))) {
      for (const resource of doc.resources ?? []) expect(existsSync(join(dirname(file), resource))).toBe(true);
    }
  });

  it('scales the gateway and lab-backtest with HPAs and protects replicated services with PDBs', () => {
    const hpas = docs.filter((d) => d.doc.kind === 'HorizontalPodAutoscaler').map((d) => d.doc.metadata?.name);
    expect(hpas.sort()).toEqual(['api-gateway', 'lab-backtest']);
    const pdbs = new Set(docs.filter((d) => d.doc.kind === 'PodDisruptionBudget').map((d) => d.doc.metadata?.name));
    for (const d of deployments) {
      if (((d.doc.spec as { replicas: number }).replicas ?? 1) >= 2) expect(pdbs.has(d.doc.metadata?.name)).toBe(true);
    }
  });
});
