/**
 * The production build as an image would hold it, without Docker: `pnpm build` bundles
 * every service and tool, scripts/deploy-service.sh installs each one's production
 * dependencies into its own directory (no sources, no tsx, jest, typescript or devnet),
 * and each is started from the compiled output with plain `node dist/main.js` — the devnet
 * and the CLI too — until every service is ready and the suite answers: the OpenAPI
 * document and the dashboard (files read at run time), pricing (billing over NATS), a
 * backtest (lab-backtest's compiled worker threads) and a granted key (the compiled CLI).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answersOk, createTestDatabase, freePort, startNode, testNamespace, WORKSPACE_ROOT, type ServiceProcess, type TestDatabase } from '@gridlab/testing';

const SERVICES = ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-forward', 'lab-backtest'] as const;
const TOOLS = ['devnet', 'cli'] as const;
const SECRET = 'production-build-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const env = { ...process.env, COREPACK_INTEGRITY_KEYS: '0' };

let work: string;
let db: TestDatabase;
const ns = testNamespace();
const running: ServiceProcess[] = [];
const opsPorts: Record<string, number> = {};
let gateway: string;
let serviceEnv: NodeJS.ProcessEnv;

function filesUnder(dir: string, skip: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (skip(path)) return [];
    return statSync(path).isDirectory() ? filesUnder(path, skip) : [path];
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'gridlab-prod-'));
  execFileSync('corepack', ['pnpm', '-s', 'build'], { cwd: WORKSPACE_ROOT, env, stdio: 'pipe' });
  for (const name of [...SERVICES, ...TOOLS]) {
    execFileSync(join(WORKSPACE_ROOT, 'scripts/deploy-service.sh'), [name, join(work, name)], { cwd: WORKSPACE_ROOT, env, stdio: 'pipe' });
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
    ),
  );
  for (const s of SERVICES) {
    running.push(
      await startNode(s, ['dist/main.js'], join(work, s), { ...serviceEnv, OPS_PORT: String(opsPorts[s]) }, () => answersOk(`http://127.0.0.1:${opsPorts[s]}/healthz`), 60_000),
    );
  }
}, 300_000);

afterAll(async () => {
  await Promise.all(running.reverse().map((p) => p.stop()));
  await db?.drop();
  await ns.cleanup();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('the production build', () => {
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
    }
    expect(existsSync(join(work, 'indexer/dist/assets/libs/rounds-store/migrations'))).toBe(true);
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

  it('answers from files read at run time, over NATS, on worker threads, and with a key from the compiled CLI', async () => {
    expect((await fetch(`${gateway}/api/v1/openapi.json`)).status).toBe(200);
    const page = await fetch(`${gateway}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app"');
    const pricing = await fetch(`${gateway}/api/v1/pricing`);
    expect(pricing.status).toBe(200);

    const granted = execFileSync(process.execPath, ['dist/main.js', 'admin', 'grant', '--owner', OWNER, '--days', '1'], { cwd: join(work, 'cli'), env: { ...process.env, ...serviceEnv } }).toString();
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
  });
});
