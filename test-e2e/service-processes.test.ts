import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runMigrations } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { createTestDatabase, testNamespace, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';

const ROOT = join(__dirname, '..');
const SERVICES = [
  // The gateway's /metrics and detailed /readyz are on its ops port (its API gets a free PORT below);
  // `live` is advisory: no indexer runs here, so it reports the feed degraded without making the gateway unready.
  { name: 'api-gateway', portVar: 'OPS_PORT', checks: ['postgres', 'nats', 'redis', 'live'] },
  { name: 'billing', portVar: 'OPS_PORT', checks: ['postgres', 'nats', 'redis'] },
  { name: 'event-log', portVar: 'OPS_PORT', checks: ['postgres', 'nats'] },
  { name: 'lab-forward', portVar: 'OPS_PORT', checks: ['postgres', 'nats'] },
  { name: 'lab-backtest', portVar: 'OPS_PORT', checks: ['postgres', 'nats', 'redis', 'history'] },
  { name: 'notifier', portVar: 'OPS_PORT', checks: ['postgres', 'nats', 'commands', 'rules'] },
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForHttp(url: string, timeoutMs: number): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

let db: TestDatabase;
const ns = testNamespace();
beforeAll(async () => {
  db = await createTestDatabase();
  // The indexer's tables, as the running suite has them (the lab services read rounds).
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
});
afterAll(async () => {
  await db.drop();
  await ns.cleanup();
});

describe.each(SERVICES)('$name process', ({ name, portVar, checks }) => {
  let child: ChildProcess;
  let port: number;
  let stderr = '';

  beforeAll(async () => {
    port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'services', name, 'src/main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        NATS_PREFIX: ns.natsPrefix,
        REDIS_PREFIX: ns.redisPrefix,
        API_KEY_HMAC_SECRET: 'test-secret-of-at-least-32-characters!',
        SESSION_SECRET: TEST_SESSION_SECRET,
        PORT: String(await freePort()),
        [portVar]: String(port),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('is alive, ready with real dependency checks, and exports metrics', async () => {
    const health = await waitForHttp(`http://127.0.0.1:${port}/healthz`, 30_000);
    expect(health.status).toBe(200);
    // Readiness may follow liveness by a moment (lab-backtest loads the round history).
    let ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    for (const deadline = Date.now() + 30_000; ready.status !== 200 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 200));
      ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    }
    const body = (await ready.json()) as { ready: boolean; checks: Record<string, { ok: boolean; advisory?: boolean }> };
    expect(ready.status).toBe(200);
    expect(Object.keys(body.checks).sort()).toEqual([...checks].sort());
    expect(Object.values(body.checks).every((c) => c.ok || c.advisory === true)).toBe(true);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain(`service="${name}"`);
    expect(metrics).toContain('process_cpu_user_seconds_total');
  });

  it('stops cleanly within 10 s of SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
