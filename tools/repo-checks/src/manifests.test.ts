/**
 * Every Kubernetes overlay as `kubectl apply -k` would send it: rendered with
 * `kubectl kustomize`, each object validated against the Kubernetes API schemas
 * (kubernetes-models; the Prometheus Operator's for PrometheusRule), then the policies an
 * operator expects: non-root, read-only, probes, limits, graceful drains, HPAs owning
 * their replica counts, disruption budgets, and no secret in a ConfigMap.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');
const SERVICES = ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-forward', 'lab-backtest', 'notifier'];
const OVERLAYS = ['k8s/overlays/dev', 'k8s/overlays/prod', 'k8s/monitoring', 'k8s/engines'];
/** Custom resources no maintained schema package covers here: checked by hand below. */
const UNSCHEMED = new Set(['postgresql.cnpg.io/v1']);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

function render(dir: string): K8sObject[] {
  const text = execFileSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((d) => d.toJSON() as K8sObject);
}

/** Each object's schema problems (validate-k8s.mjs: the models are ES modules, run by node itself). */
function schemaProblems(objects: readonly unknown[]): string[] {
  const out = execFileSync(process.execPath, [join(__dirname, 'validate-k8s.mjs')], { input: JSON.stringify(objects), encoding: 'utf8', cwd: join(__dirname, '..') });
  return JSON.parse(out) as string[];
}

const rendered = Object.fromEntries(OVERLAYS.map((dir) => [dir, render(dir)]));

/** The Solana RPC endpoints each service reads, every one from its own Secret. */
const RPC_URLS: Readonly<Record<string, readonly string[]>> = { indexer: ['SOLANA_RPC_URL', 'SOLANA_WS_URL'], billing: ['SOLANA_RPC_URL'] };

/**
 * Whether a ConfigMap entry looks like it holds a secret: by its name (a password, a key,
 * an RPC endpoint: SOLANA_RPC_URL, SOLANA_WS_URL, PUBLIC_RPC_URL, ...), or by its value (a
 * URL with user info, or with a credential in its query).
 */
function secretLooking(key: string, value: string): boolean {
  return (
    /SECRET|PASSWORD|PRIVATE|TOKEN_KEY|CREDENTIAL|API_KEY/i.test(key) ||
    /RPC.*_(URL|ENDPOINT)$|_WS_URL$/i.test(key) ||
    /:\/\/[^/\s]*:[^@/\s]+@/.test(value) ||
    /[?&](api[-_]?key|key|token|access_token|auth)=/i.test(value)
  );
}

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values: string[] }[] };
interface EgressPeer {
  ipBlock?: { cidr: string; except?: string[] };
  podSelector?: Selector;
  namespaceSelector?: Selector;
}
interface EgressRule {
  to?: EgressPeer[];
  ports?: { protocol?: string; port: number | string }[];
}

/**
 * What no webhook may reach: private (RFC 1918), CGNAT, link-local (the cloud metadata
 * address) and loopback IPv4; unique-local, link-local and loopback IPv6. An internet-wide
 * block the notifier posts to must except each of them (more excepts only narrow it).
 */
const NON_PUBLIC: Readonly<Record<string, readonly string[]>> = {
  '0.0.0.0/0': ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'],
  '::/0': ['fc00::/7', 'fe80::/10', '::1/128'],
};

const labelsAre = (selector: Selector | undefined, labels: Record<string, string>): boolean =>
  selector !== undefined && (selector.matchExpressions ?? []).length === 0 && JSON.stringify(selector.matchLabels ?? {}) === JSON.stringify(labels);

/**
 * The notifier's egress judged peer by peer and port by port: what it reaches (DNS, NATS,
 * PostgreSQL, HTTPS on the public internet) and every problem (a rule without ports or
 * peers, any other peer or port, an internet block missing a non-public except).
 */
function notifierEgress(rules: readonly EgressRule[]): { reaches: string[]; problems: string[] } {
  const reaches = new Set<string>();
  const problems: string[] = [];
  for (const rule of rules) {
    // An empty `ports` opens every port, an empty `to` every address.
    if ((rule.ports ?? []).length === 0) problems.push(`every port of ${JSON.stringify(rule.to ?? 'everywhere')}`);
    if ((rule.to ?? []).length === 0) problems.push(`every address on ${JSON.stringify(rule.ports ?? 'every port')}`);
    for (const peer of rule.to ?? []) {
      for (const { protocol = 'TCP', port } of rule.ports ?? []) {
        const where = `${JSON.stringify(peer)} on ${protocol} ${port}`;
        const inNamespace = peer.namespaceSelector === undefined;
        if (peer.ipBlock !== undefined) {
          const required = NON_PUBLIC[peer.ipBlock.cidr];
          const missing = (required ?? []).filter((r) => !(peer.ipBlock!.except ?? []).includes(r));
          if (required === undefined || protocol !== 'TCP' || port !== 443 || Object.keys(peer).length > 1) problems.push(where);
          else if (missing.length > 0) problems.push(`${where} without excepting ${missing.join(', ')}`);
          else reaches.add(`https ${peer.ipBlock.cidr}`);
        } else if (labelsAre(peer.namespaceSelector, { 'kubernetes.io/metadata.name': 'kube-system' }) && labelsAre(peer.podSelector, { 'k8s-app': 'kube-dns' }) && port === 53) {
          reaches.add(`dns ${protocol}`);
        } else if (inNamespace && labelsAre(peer.podSelector, { 'app.kubernetes.io/name': 'nats' }) && protocol === 'TCP' && port === 4222) {
          reaches.add('nats');
        } else if (inNamespace && labelsAre(peer.podSelector, { 'cnpg.io/cluster': 'gridlab-pg' }) && protocol === 'TCP' && port === 5432) {
          reaches.add('postgres');
        } else {
          problems.push(where);
        }
      }
    }
  }
  return { reaches: [...reaches].sort(), problems };
}

interface Container {
  name: string;
  image: string;
  livenessProbe?: unknown;
  readinessProbe?: unknown;
  lifecycle?: { preStop?: unknown };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { runAsNonRoot?: boolean; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
  env?: { name: string; value?: string; valueFrom?: { resourceFieldRef?: { resource: string } } }[];
}
interface PodTemplate {
  spec: { securityContext?: { runAsNonRoot?: boolean; runAsUser?: number }; terminationGracePeriodSeconds?: number; containers: Container[] };
}

describe.each(OVERLAYS)('%s', (dir) => {
  const objects = rendered[dir]!;

  it('renders, and every object is valid against its API schema', () => {
    expect(objects.length).toBeGreaterThan(0);
    expect(schemaProblems(objects.filter((o) => !UNSCHEMED.has(o.apiVersion)))).toEqual([]);
  });

  it('puts no secret into a ConfigMap (an RPC URL counts: providers put their API key in it)', () => {
    for (const cm of objects.filter((o) => o.kind === 'ConfigMap')) {
      for (const [key, value] of Object.entries(cm.data ?? {})) {
        expect({ key, secretLooking: secretLooking(key, value) }).toEqual({ key, secretLooking: false });
      }
    }
  });
});

describe.each(['k8s/overlays/dev', 'k8s/overlays/prod'])('%s workloads', (dir) => {
  const objects = rendered[dir]!;
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');

  it('has a Deployment for every service', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...SERVICES].sort());
  });

  it.each(SERVICES)('%s: non-root, read-only, probes, limits and a graceful drain', (name) => {
    const pod = (deployments.find((d) => d.metadata.name === name)!.spec as { template: PodTemplate }).template.spec;
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
    for (const c of pod.containers) {
      expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(c.livenessProbe).toBeDefined();
      expect(c.readinessProbe).toBeDefined();
      expect(c.resources?.requests?.['cpu']).toBeDefined();
      expect(c.resources?.requests?.['memory']).toBeDefined();
      expect(c.resources?.limits?.['cpu']).toBeDefined();
      expect(c.resources?.limits?.['memory']).toBeDefined();
      expect(c.lifecycle?.preStop).toBeDefined();
      expect(c.image).not.toMatch(/:latest$/.test(c.image) && dir.endsWith('prod') ? /.*/ : /^$/);
    }
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(5);
  });

  it('lets the autoscalers own the replica counts of what they scale', () => {
    expect(hpas.map((h) => h.metadata.name).sort()).toEqual(['api-gateway', 'lab-backtest']);
    for (const hpa of hpas) {
      const target = (hpa.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef;
      const deployment = deployments.find((d) => d.kind === target.kind && d.metadata.name === target.name)!;
      expect({ scaled: target.name, replicas: (deployment.spec as { replicas?: number }).replicas }).toEqual({ scaled: target.name, replicas: undefined });
    }
  });

  it("sizes lab-backtest's worker threads from its CPU limit", () => {
    const c = (deployments.find((d) => d.metadata.name === 'lab-backtest')!.spec as { template: PodTemplate }).template.spec.containers[0]!;
    expect(c.env?.find((e) => e.name === 'LAB_WORKERS')?.valueFrom?.resourceFieldRef?.resource).toBe('limits.cpu');
  });

  it.each(Object.entries(RPC_URLS))('%s: reads its RPC endpoints from its own Secret, and a Secret without them stops the pod', (name, keys) => {
    const c = (deployments.find((d) => d.metadata.name === name)!.spec as { template: PodTemplate }).template.spec.containers[0]!;
    for (const key of keys) {
      const ref = (c.env?.find((e) => e.name === key)?.valueFrom as { secretKeyRef?: { name: string; key: string; optional?: boolean } } | undefined)?.secretKeyRef;
      expect({ key, ref }).toEqual({ key, ref: { name: `gridlab-${name}`, key } });
    }
  });

  it('protects every service that runs two or more replicas with a disruption budget', () => {
    const pdbs = new Set(objects.filter((o) => o.kind === 'PodDisruptionBudget').map((o) => o.metadata.name));
    for (const d of deployments) {
      const hpa = hpas.find((h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === d.metadata.name);
      const floor = hpa === undefined ? ((d.spec as { replicas?: number }).replicas ?? 1) : (hpa.spec as { minReplicas: number }).minReplicas;
      if (floor >= 2) expect({ deployment: d.metadata.name, pdb: pdbs.has(d.metadata.name) }).toEqual({ deployment: d.metadata.name, pdb: true });
    }
  });
});

describe.each(['k8s/overlays/dev', 'k8s/overlays/prod'])('%s least privilege', (dir) => {
  const objects = rendered[dir]!;
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy') as (K8sObject & {
    spec: { podSelector: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values: string[] }[] }; policyTypes: string[]; ingress?: { ports?: { port: number }[] }[] };
  })[];
  const selects = (policy: (typeof policies)[number], labels: Record<string, string>): boolean =>
    Object.entries(policy.spec.podSelector.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
    (policy.spec.podSelector.matchExpressions ?? []).every((e) => e.operator === 'In' && e.values.includes(labels[e.key] ?? ''));

  it('gives each service only its own Secret and no service account token', () => {
    for (const d of deployments) {
      const pod = (d.spec as { template: { spec: { automountServiceAccountToken?: boolean; containers: (Container & { envFrom?: { secretRef?: { name: string } }[] })[] } } }).template.spec;
      expect({ service: d.metadata.name, token: pod.automountServiceAccountToken }).toEqual({ service: d.metadata.name, token: false });
      for (const c of pod.containers) {
        const secrets = [
          ...(c.envFrom ?? []).flatMap((e) => (e.secretRef === undefined ? [] : [e.secretRef.name])),
          ...(c.env ?? []).flatMap((e) => ((e.valueFrom as { secretKeyRef?: { name: string } } | undefined)?.secretKeyRef === undefined ? [] : [(e.valueFrom as { secretKeyRef: { name: string } }).secretKeyRef.name])),
        ];
        expect({ service: d.metadata.name, secrets: [...new Set(secrets)] }).toEqual({ service: d.metadata.name, secrets: [`gridlab-${d.metadata.name}`] });
      }
    }
  });

  it('denies by default; only the gateway takes traffic besides scrapes of the ops ports', () => {
    // A default deny selects every pod for both directions and allows nothing: a rule in it
    // (even `{}`) would allow instead.
    const selectsAll = (p: (typeof policies)[number]): boolean => Object.keys(p.spec.podSelector.matchLabels ?? {}).length === 0 && (p.spec.podSelector.matchExpressions ?? []).length === 0;
    const denyAll = policies.filter((p) => selectsAll(p) && p.spec.policyTypes.includes('Ingress') && p.spec.policyTypes.includes('Egress'));
    expect(denyAll.map((p) => ({ name: p.metadata.name, ingress: p.spec.ingress ?? [], egress: (p.spec as { egress?: unknown[] }).egress ?? [] }))).toEqual([
      { name: expect.any(String), ingress: [], egress: [] },
    ]);
    for (const d of deployments) {
      const labels = (d.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      // A rule without ports opens every port of the pod.
      const ingressPorts = policies
        .filter((p) => p.spec.policyTypes.includes('Ingress') && p.spec.ingress !== undefined && selects(p, labels))
        .flatMap((p) => p.spec.ingress!.flatMap((r): (number | string)[] => (r.ports === undefined || r.ports.length === 0 ? ['every port'] : r.ports.map((port) => port.port))));
      const publicPorts = ingressPorts.filter((port) => typeof port !== 'number' || port < 9100 || port > 9199);
      // Prometheus reaches the port the pod says it serves its metrics on.
      const scraped = Number((d.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template.metadata.annotations?.['prometheus.io/port']);
      expect({ service: d.metadata.name, scraped, open: ingressPorts.includes(scraped) }).toEqual({ service: d.metadata.name, scraped: expect.any(Number), open: true });
      expect({ service: d.metadata.name, publicPorts }).toEqual({ service: d.metadata.name, publicPorts: d.metadata.name === 'api-gateway' ? [8080] : [] });
      const egress = policies.filter((p) => p.spec.policyTypes.includes('Egress') && (p.spec as { egress?: unknown[] }).egress !== undefined && selects(p, labels));
      expect({ service: d.metadata.name, egressPolicies: egress.length > 0 }).toEqual({ service: d.metadata.name, egressPolicies: true });
    }
  });

  it('lets the notifier reach only DNS, NATS, PostgreSQL and HTTPS on public addresses', () => {
    const labels = (deployments.find((d) => d.metadata.name === 'notifier')!.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const rules = policies.filter((p) => p.spec.policyTypes.includes('Egress') && selects(p, labels)).flatMap((p) => (p.spec as { egress?: EgressRule[] }).egress ?? []);
    expect(notifierEgress(rules)).toEqual({ reaches: ['dns TCP', 'dns UDP', 'https 0.0.0.0/0', 'https ::/0', 'nats', 'postgres'], problems: [] });
  });

  it('lets each engine, under the default deny, take exactly its clients and its own peers', () => {
    type Peer = { podSelector?: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values: string[] }[] } };
    const podLabels = (name: string): Record<string, string> => (deployments.find((d) => d.metadata.name === name)!.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const admits = (engine: Record<string, string>, port: number, client: Record<string, string>): boolean =>
      policies.some(
        (p) =>
          p.spec.policyTypes.includes('Ingress') &&
          selects(p, engine) &&
          (p.spec.ingress as ({ from?: Peer[] } & { ports?: { port: number }[] })[] | undefined ?? []).some(
            (rule) => (rule.ports ?? []).some((q) => q.port === port) && (rule.from ?? []).some((f) => f.podSelector !== undefined && selects({ spec: { podSelector: f.podSelector, policyTypes: [] } } as never, client)),
          ),
      );
    const engines: { engine: Record<string, string>; port: number; clients: string[] }[] = [
      { engine: { 'app.kubernetes.io/name': 'nats' }, port: 4222, clients: SERVICES },
      { engine: { 'app.kubernetes.io/name': 'nats' }, port: 6222, clients: [] },
      { engine: { 'cnpg.io/cluster': 'gridlab-pg' }, port: 5432, clients: SERVICES },
      { engine: { 'app.kubernetes.io/name': 'redis' }, port: 6379, clients: ['api-gateway', 'billing', 'lab-backtest'] },
    ];
    for (const { engine, port, clients } of engines) {
      for (const service of SERVICES) {
        expect({ engine, port, service, admitted: admits(engine, port, podLabels(service)) }).toEqual({ engine, port, service, admitted: clients.includes(service) });
      }
      // Its own peers: NATS routes, PostgreSQL replication, Redis replication and Sentinel.
      expect({ engine, peers: admits(engine, port === 4222 ? 6222 : port, engine) }).toEqual({ engine, peers: true });
    }
  });

  it('exposes the gateway through the Ingress on its HTTP port only', () => {
    const ingresses = objects.filter((o) => o.kind === 'Ingress');
    expect(ingresses).toHaveLength(1);
    const backends = JSON.stringify(ingresses[0]!.spec).match(/"service":\{[^}]*\}[^}]*\}/g) ?? [];
    expect(backends).toEqual(['"service":{"name":"api-gateway","port":{"name":"http"}}']);
    const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'api-gateway')!;
    expect((service.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['http']);
  });
});

describe('k8s/engines: the clustered engines', () => {
  const objects = rendered['k8s/engines']!;
  const readYaml = (file: string): Record<string, any> => parse(readFileSync(join(ROOT, 'k8s/engines', file), 'utf8')) as Record<string, any>;

  it('runs PostgreSQL as a CloudNativePG cluster of three with a role per service, created at bootstrap', () => {
    const cluster = objects.find((o) => o.kind === 'Cluster')! as K8sObject & { spec: Record<string, any> };
    expect(cluster.apiVersion).toBe('postgresql.cnpg.io/v1');
    expect(cluster.spec['instances']).toBe(3);
    const roles = (cluster.spec['managed'].roles as { name: string; login: boolean; passwordSecret: { name: string } }[]).map((r) => r.name).sort();
    const sql = readFileSync(join(ROOT, 'k8s/engines/postgres-roles.sql'), 'utf8');
    const services = /FOREACH service IN ARRAY ARRAY\[([^\]]+)\]/.exec(sql)![1]!.split(',').map((s) => `gridlab_${s.trim().replace(/'/g, '')}`).sort();
    expect(roles).toEqual(services);
    const ref = cluster.spec['bootstrap'].initdb.postInitApplicationSQLRefs.configMapRefs[0] as { name: string; key: string };
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === ref.name)!;
    expect(configMap.data?.[ref.key]).toBe(sql);
  });

  it('runs NATS as a 3-node JetStream cluster and Redis with Sentinel failover behind a master Service', () => {
    const nats = readYaml('nats-values.yaml');
    expect(nats['config'].cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(nats['config'].jetstream).toMatchObject({ enabled: true, fileStore: { enabled: true } });
    const redis = readYaml('redis-values.yaml');
    expect(redis['architecture']).toBe('replication');
    expect(redis['sentinel']).toMatchObject({ enabled: true, masterService: { enabled: true } });
    expect(redis['auth']).toMatchObject({ enabled: true });
    // The services replicate their streams as the cluster allows.
    const prod = rendered['k8s/overlays/prod']!.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'gridlab-config')!;
    expect(prod.data?.['NATS_STREAM_REPLICAS']).toBe('3');
  });

  it('keeps each client\'s address up to the gateway: the ingress controller\'s Service is externalTrafficPolicy Local, and it believes no client-sent X-Forwarded-For', () => {
    const ingress = readYaml('ingress-nginx-values.yaml');
    expect(ingress['controller'].service).toMatchObject({ externalTrafficPolicy: 'Local' });
    expect(ingress['controller'].config).toMatchObject({ 'use-forwarded-headers': 'false' });
    // The gateway believes X-Forwarded-For from the controller's pods only.
    const prod = rendered['k8s/overlays/prod']!.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'gridlab-config')!;
    expect(prod.data?.['TRUSTED_PROXIES']).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+/);
  });
});

describe('the ConfigMap secret rule', () => {
  it('flags RPC URLs by name, URLs with user info or a credential in the query, and secret names; passes plain settings', () => {
    const flagged = [
      ['SOLANA_RPC_URL', 'https://api.mainnet-beta.solana.com'],
      ['SOLANA_WS_URL', 'wss://api.mainnet-beta.solana.com'],
      ['PUBLIC_RPC_URL', 'https://rpc.example.com'],
      ['UPSTREAM', 'https://mainnet.helius-rpc.com/?api-key=abc'],
      ['UPSTREAM', 'https://rpc.example.com/v1?x=1&token=abc'],
      ['REDIS_URL', 'redis://gw:pw@redis:6379'],
      ['API_KEY_HMAC_SECRET', 'x'],
    ];
    for (const [key, value] of flagged) expect({ key, value, flagged: secretLooking(key!, value!) }).toEqual({ key, value, flagged: true });
    const plain = [
      ['NATS_URL', 'nats://nats:4222'],
      ['RPC_LIMITS', 'all=100/10s,default=40/10s'],
      ['PUBLIC_ORIGIN', 'https://gridlab.example.com'],
      ['TOKEN_MINT', 'oreoU2P8bN6jkk3jbaiVxYnG1dCXcYxwhwyK9jSybcp'],
    ];
    for (const [key, value] of plain) expect({ key, value, flagged: secretLooking(key!, value!) }).toEqual({ key, value, flagged: false });
  });
});

describe("the notifier's egress rule", () => {
  const policies = rendered['k8s/overlays/prod']!.filter((o) => o.kind === 'NetworkPolicy');
  const rules = policies.filter((p) => ['gridlab-dns-and-bus', 'notifier-webhooks'].includes(p.metadata.name)).flatMap((p) => (p.spec as { egress: EgressRule[] }).egress);
  const internet: EgressPeer = { ipBlock: { cidr: '0.0.0.0/0', except: NON_PUBLIC['0.0.0.0/0']!.filter((r) => r !== '169.254.0.0/16') } };

  it('flags a policy opened wider: another port, another peer, a missing except, a rule without ports or peers', () => {
    expect(notifierEgress(rules).problems).toEqual([]);
    const wider: [string, EgressRule][] = [
      ['http', { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: [...NON_PUBLIC['0.0.0.0/0']!] } }], ports: [{ protocol: 'TCP', port: 80 }] }],
      ['the metadata address', { to: [internet], ports: [{ protocol: 'TCP', port: 443 }] }],
      ['a private block', { to: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ protocol: 'TCP', port: 443 }] }],
      ['redis', { to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'redis' } } }], ports: [{ protocol: 'TCP', port: 6379 }] }],
      ['nats in any namespace', { to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'nats' } } }], ports: [{ protocol: 'TCP', port: 4222 }] }],
      ['every port', { to: [{ podSelector: { matchLabels: { 'cnpg.io/cluster': 'gridlab-pg' } } }] }],
      ['every address', { ports: [{ protocol: 'TCP', port: 443 }] }],
    ];
    for (const [what, rule] of wider) expect({ what, flagged: notifierEgress([...rules, rule]).problems.length > 0 }).toEqual({ what, flagged: true });
  });
});

describe('the validator', () => {
  it('refuses invalid objects (a misspelt field type, a rule without expr) and names them', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'bad' }, spec: { replicas: 'two', selector: {}, template: {} } };
    const rule = { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: 'bad-rule' }, spec: { groups: [{ name: 'g', rules: [{ alert: 'A' }] }] } };
    const problems = schemaProblems([deployment, rule, rendered['k8s/overlays/prod']![0]]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^Deployment\/bad: .*replicas/);
    expect(problems[1]).toMatch(/^PrometheusRule\/bad-rule: .*expr/);
  });
});
