/**
 * The production build as an image would hold it, without Docker. The build context is
 * copied as `docker build` sends it (the checkout less what .dockerignore excludes, matched
 * by Docker's own rules), and the Dockerfile's build stage runs there: `pnpm install
 * --frozen-lockfile`, `pnpm build` (every service and tool bundled) and
 * scripts/deploy-service.sh, which installs each one's production dependencies into its own
 * directory (no sources, no tsx, jest, typescript or devnet). Each is then started from
 * the compiled output with plain `node dist/main.js` — the devnet and the CLI too — as the
 * image's numeric user on a tree it cannot write (when the test runs as root, as CI does),
 * until every service is ready and the suite answers: the OpenAPI document and the
 * dashboard (files read at run time), pricing (billing over NATS), a backtest
 * (lab-backtest's compiled worker threads), a granted key (the compiled CLI) and an alert
 * rule (the notifier over NATS, in the schema its bundled migrations made).
 */
import ignore from '@balena/dockerignore';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { answersOk, createTestDatabase, freePort, startNode, testNamespace, WORKSPACE_ROOT, type ProcessUser, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';

const SERVICES = ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-forward', 'lab-backtest', 'notifier'] as const;
const TOOLS = ['devnet', 'cli'] as const;
const SECRET = 'production-build-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const env = { ...process.env };

let work: string;
let context: string[];
let db: TestDatabase;
const ns = testNamespace();
const running: ServiceProcess[] = [];
const opsPorts: Record<string, number> = {};
let gateway: string;
let serviceEnv: NodeJS.ProcessEnv;
/** As root (CI), the processes run as the image's user, who cannot write the root-owned tree, like the image. */
const user = process.getuid?.() === 0 ? imageUser() : undefined;

function filesUnder(dir: string, skip: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (skip(path)) return [];
    return statSync(path).isDirectory() ? filesUnder(path, skip) : [path];
  });
}

/**
 * The files `docker build .` sends from `root` (paths relative to it): everything but what
 * .dockerignore excludes. Like Docker, an excluded directory is skipped whole unless an
 * exception (`!pattern`) may bring back something inside it.
 */
function buildContext(root: string): string[] {
  const rules = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
  const excluded = ignore().add(rules);
  const exceptions = rules.map((r) => r.trim()).filter((r) => r.startsWith('!')).map((r) => r.slice(1));
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) return excluded.ignores(path) && !exceptions.some((e) => e.startsWith(`${path}/`)) ? [] : walk(path);
      return excluded.ignores(path) ? [] : [path];
    });
  return walk('');
}

/** The runtime stage's `USER uid:gid` in the Dockerfile. */
function imageUser(): ProcessUser {
  const dockerfile = readFileSync(join(WORKSPACE_ROOT, 'deploy/docker/Dockerfile'), 'utf8');
  const m = /^USER (\d+):(\d+)$/m.exec(dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')));
  if (m === null) throw new Error('deploy/docker/Dockerfile: the runtime stage has no numeric USER');
  return { uid: Number(m[1]), gid: Number(m[2]) };
}

/** Every directory under `dir` made read-only (or writable again): no file can be added, renamed or removed. */
function setDirectoriesWritable(dir: string, writable: boolean): void {
  chmodSync(dir, writable ? 0o755 : 0o555);
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) setDirectoriesWritable(join(dir, entry.name), writable);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'gridlab-prod-'));
  chmodSync(work, 0o755);
  // The Dockerfile's build stage, in a copy of the build context (never in the checkout,
  // whose dashboard build other tests serve). Offline here: the store has every package.
  const src = join(work, 'src');
  context = buildContext(WORKSPACE_ROOT);
  for (const file of context) {
    mkdirSync(dirname(join(src, file)), { recursive: true });
    cpSync(join(WORKSPACE_ROOT, file), join(src, file), { verbatimSymlinks: true });
  }
  execFileSync('corepack', ['pnpm', 'install', '--frozen-lockfile', '--offline'], { cwd: src, env, stdio: 'pipe' });
  execFileSync('corepack', ['pnpm', '-s', 'build'], { cwd: src, env, stdio: 'pipe' });
  for (const name of [...SERVICES, ...TOOLS]) {
    execFileSync(join(src, 'scripts/deploy-service.sh'), [name, join(work, name)], { cwd: src, env, stdio: 'pipe' });
    setDirectoriesWritable(join(work, name), false);
  }
  db = await createTestDatabase();
  const [rpcPort, wsPort, gatewayPort] = await Promise.all([freePort(), freePort(), freePort()]);
  for (const s of SERVICES) opsPorts[s] = await freePort();
  gateway = `http://127.0.0.1:${gatewayPort}`;
  serviceEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: db.url,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: 'warn',
    SOLANA_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    SOLANA_WS_URL: `ws://127.0.0.1:${wsPort}`,
    SLOT_SECONDS: '0.04',
    POLL_INTERVAL_MS: '200',
    CATCH_UP_INTERVAL_MS: '200',
    LAB_WORKERS: '1',
    PORT: String(gatewayPort),
  };
  // The compiled devnet first (the services' chain), with a short history.
  running.push(
    await startNode(
      'devnet',
      ['dist/main.js'],
      join(work, 'devnet'),
      { ...serviceEnv, DEVNET_RPC_PORT: String(rpcPort), DEVNET_WS_PORT: String(wsPort), DEVNET_SLOT_MS: '40', DEVNET_ROUND_SLOTS: '15', DEVNET_INTERMISSION_SLOTS: '4', DEVNET_HISTORY_ROUNDS: '60' },
      () => answersOk(`http://127.0.0.1:${rpcPort}/health`),
      60_000,
      user,
    ),
  );
  for (const s of SERVICES) {
    running.push(
      await startNode(s, ['dist/main.js'], join(work, s), { ...serviceEnv, OPS_PORT: String(opsPorts[s]) }, () => answersOk(`http://127.0.0.1:${opsPorts[s]}/healthz`), 60_000, user),
    );
  }
  // The build, an install and nine deploys: about two minutes alone, over five beside the
  // other heavy test files on two cores. The bound is for a hang, not for a slow machine.
}, 900_000);

afterAll(async () => {
  await Promise.all(running.reverse().map((p) => p.stop()));
  await db?.drop();
  await ns.cleanup();
  if (work !== undefined) {
    for (const name of [...SERVICES, ...TOOLS]) if (existsSync(join(work, name))) setDirectoriesWritable(join(work, name), true);
    await rm(work, { recursive: true, force: true });
  }
});

describe('the production build', () => {
  it('is built from a context without installed, built, local or test files', () => {
    const unwanted = context.filter((f) => /(^|\/)(node_modules|dist|\.git|\.gridlab|coverage)(\/|$)|\.test\.ts$|^(docs|k8s|bench\/src)\//.test(f));
    expect(unwanted).toEqual([]);
    expect(context).toEqual(expect.arrayContaining(['pnpm-lock.yaml', 'deploy/docker/Dockerfile', 'scripts/build.mjs', 'scripts/deploy-service.sh', 'bench/package.json', 'test-e2e/package.json']));
  });

  it('holds only the bundle and production dependencies: no sources, tsx, jest, typescript or devnet', () => {
    for (const name of [...SERVICES, ...TOOLS]) {
      const dir = join(work, name);
      expect(readdirSync(dir).sort()).toEqual(['dist', 'node_modules', 'package.json']);
      const modules = readdirSync(join(dir, 'node_modules'));
      for (const banned of ['tsx', 'jest', 'typescript', '@gridlab', 'ts-node', 'esbuild']) expect({ name, banned, present: modules.includes(banned) }).toEqual({ name, banned, present: false });
      const sources = filesUnder(dir, (p) => p.includes('node_modules')).filter((f) => /\.tsx?$/.test(f));
      expect({ name, sources }).toEqual({ name, sources: [] });
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      expect(Object.keys(manifest.dependencies).filter((d) => d.startsWith('@gridlab/'))).toEqual([]);
      // Source maps give stack traces their TypeScript lines without carrying the sources.
      const withSources = filesUnder(join(dir, 'dist'), (p) => p.includes('/apps/web/')).filter((f) => f.endsWith('.js.map') && 'sourcesContent' in (JSON.parse(readFileSync(f, 'utf8')) as object));
      expect({ name, withSources }).toEqual({ name, withSources: [] });
    }
    expect(existsSync(join(work, 'indexer/dist/assets/libs/rounds-store/migrations'))).toBe(true);
    expect(existsSync(join(work, 'notifier/dist/assets/libs/alerts-store/migrations'))).toBe(true);
  });

  it('starts every service with plain node and each reaches readiness', async () => {
    for (const s of SERVICES) {
      const deadline = Date.now() + 90_000;
      let last = '';
      for (;;) {
        const res = await fetch(`http://127.0.0.1:${opsPorts[s]}/readyz`).catch(() => null);
        if (res?.status === 200) break;
        last = res === null ? 'no answer' : `${res.status} ${await res.text()}`;
        if (Date.now() > deadline) throw new Error(`${s} not ready: ${last}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  });

  it('answers from files read at run time, over NATS, on worker threads, with a key from the compiled CLI, and keeps alert rules', async () => {
    expect((await fetch(`${gateway}/api/v1/openapi.json`)).status).toBe(200);
    const page = await fetch(`${gateway}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app"');
    const pricing = await fetch(`${gateway}/api/v1/pricing`);
    expect(pricing.status).toBe(200);

    const granted = execFileSync(process.execPath, ['dist/main.js', 'admin', 'grant', '--owner', OWNER, '--days', '1'], { cwd: join(work, 'cli'), env: { ...process.env, ...serviceEnv }, ...user }).toString();
    const apiKey = (JSON.parse(granted) as { apiKey: string }).apiKey;
    const auth = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const deadline = Date.now() + 60_000;
    let backtest: Response;
    for (;;) {
      backtest = await fetch(`${gateway}/api/v1/lab/backtest`, { method: 'POST', headers: auth, body: JSON.stringify({ dsl: { base_strategy: 'cold', params: { bet_size_lamports: 1_000_000 } } }) });
      if (backtest.status === 200 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(backtest.status).toBe(200);
    const result = ((await backtest.json()) as { result: { roundsBet: number } }).result;
    expect(result.roundsBet).toBeGreaterThan(0);

    // A rule without a target (the alert stream only): no webhook leaves the machine. The
    // notifier was started on its liveness; its readiness says it answers commands.
    const notifierReady = Date.now() + 60_000;
    while (!(await answersOk(`http://127.0.0.1:${opsPorts.notifier}/readyz`).catch(() => false)) && Date.now() < notifierReady) await new Promise((r) => setTimeout(r, 250));
    const alert = await fetch(`${gateway}/api/v1/alerts`, { method: 'POST', headers: auth, body: JSON.stringify({ kind: 'motherlode', minOre: 1000 }) });
    expect(alert.status).toBe(201);
    const listed = (await (await fetch(`${gateway}/api/v1/alerts`, { headers: auth })).json()) as { alerts: { kind: string }[] };
    expect(listed.alerts.map((a) => a.kind)).toEqual(['motherlode']);
  });
});
