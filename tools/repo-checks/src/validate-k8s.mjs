// Validates Kubernetes objects against the API schemas (kubernetes-models, and the Prometheus
// Operator's models for monitoring.coreos.com), as an ES module since those packages are ESM
// only. Reads a JSON array of objects on stdin; prints a JSON array of "Kind/name: problem".
import { readFileSync } from 'node:fs';

const objects = JSON.parse(readFileSync(0, 'utf8'));
const problems = [];
for (const o of objects) {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  const module =
    group === 'monitoring.coreos.com'
      ? `@kubernetes-models/prometheus-operator/${group}/${version}/${o.kind}`
      : `kubernetes-models/${group === '' ? '' : `${group}/`}${version}/${o.kind}`;
  try {
    const Model = (await import(module))[o.kind];
    if (Model === undefined) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
    new Model(o).validate();
  } catch (error) {
    problems.push(`${o.kind}/${o.metadata?.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
process.stdout.write(JSON.stringify(problems));
