/**
 * Per-service NATS users (issue 15): on a nats-server of the test's own configured with
 * natsAuthorization, the whole suite runs with each service logged in as itself — history,
 * live snapshots, billing and Lab commands (chunked replies included), strategies and the
 * event log all work — while a service cannot publish what is not its own (only billing
 * publishes billing facts) nor read the replies to another service's requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsAuthorization, NATS_SERVICES } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { createTestDatabase, freePort, startKeyedSuite, testNamespace, waitUntil, type KeyedSuite, type TestDatabase } from '@gridlab/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';

const SECRET = 'nats-permissions-secret-0123456789';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const PASSWORD = 'service-password';
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
let work: string;
let db: TestDatabase;
let server: ChildProcess;
let natsUrl: string;
let running: KeyedSuite | null = null;

async function as(user: string): Promise<{ nc: NatsConnection; violations: string[] }> {
  const nc = await connect({ servers: natsUrl, user, pass: PASSWORD, inboxPrefix: `_INBOX_${user}` });
  const violations: string[] = [];
  void (async () => {
    for await (const status of nc.status()) {
      const text = JSON.stringify(status);
      if (/permission/i.test(text)) violations.push(text);
    }
  })();
  return { nc, violations };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'gridlab-nats-auth-'));
  const port = await freePort();
  natsUrl = `nats://127.0.0.1:${port}`;
  const passwords = Object.fromEntries(NATS_SERVICES.map((s) => [s, PASSWORD])) as Record<(typeof NATS_SERVICES)[number], string>;
  const config = `listen: 127.0.0.1:${port}\njetstream { store_dir: ${JSON.stringify(join(work, 'js'))} }\n${natsAuthorization(names, passwords)}`;
  await writeFile(join(work, 'nats.conf'), config);
  server = spawn('/usr/sbin/nats-server', ['-c', join(work, 'nats.conf')], { stdio: 'ignore' });
  await waitUntil('nats-server', () => connect({ servers: natsUrl, user: 'indexer', pass: PASSWORD }).then((nc) => nc.close().then(() => true)), (ok) => ok, { timeoutMs: 10_000 });
  db = await createTestDatabase();
  running = await startKeyedSuite({
    services: ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-forward', 'lab-backtest'],
    databaseUrl: db.url,
    natsPrefix: ns.natsPrefix,
    redisPrefix: ns.redisPrefix,
    secret: SECRET,
    dataDir: join(work, 'data'),
    // Enough history for the event log to derive events from it at once.
    historyRounds: 300,
    owner: OWNER,
    env: { NATS_URL: natsUrl, GRIDLAB_NATS_PASSWORD: PASSWORD },
  });
}, 240_000);

afterAll(async () => {
  await running?.suite.stop();
  server?.kill('SIGKILL');
  await db?.drop();
  await ns.cleanup().catch(() => undefined);
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('one NATS user per service', () => {
  it('runs the whole suite with each service logged in as itself', async () => {
    const base = running!.local.gatewayUrl;
    const key = running!.env['GRIDLAB_API_KEY']!;
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${base}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } });
    // Live snapshots (indexer → KV and subject → gateway).
    await running!.until('a live snapshot', async () => (await call('/live')).status, (s) => s === 200);
    // Billing's commands, and the Lab's (a backtest reply may come in chunks).
    await running!.until('pricing from billing', async () => (await fetch(`${base}/api/v1/pricing`)).status, (s) => s === 200);
    const backtest = await call('/lab/backtest', { method: 'POST', body: JSON.stringify({ dsl: { base_strategy: 'cold', params: { bet_size_lamports: 1_000_000 } } }) });
    expect(backtest.status).toBe(200);
    const created = await call('/lab/strategies', { method: 'POST', body: JSON.stringify({ name: 'nats users', dsl: { base_strategy: 'spread', params: { bet_size_lamports: 1_000_000 } } }) });
    expect(created.status).toBe(201);
    // The event log (durable consumers of ROUNDS and BILLING, then events.event.appended).
    await running!.until('events', async () => ((await (await call('/events?since=0')).json()) as { count: number }).count, (n) => n > 0);
  });

  it("lets only billing publish billing facts, and nobody read another service's replies", async () => {
    const gateway = await as('api-gateway');
    gateway.nc.publish(names.subjects.subscriptionChanged, new TextEncoder().encode('{}'));
    const stolen = gateway.nc.subscribe('_INBOX_billing.>');
    await gateway.nc.flush();
    await waitUntil('two permission violations', async () => gateway.violations.length, (n) => n >= 2, { timeoutMs: 10_000 });
    expect(gateway.violations.join('\n')).toMatch(/publish/i);
    expect(gateway.violations.join('\n')).toMatch(/subscri/i);
    stolen.unsubscribe();

    const backtest = await as('lab-backtest');
    backtest.nc.publish(names.subjects.roundSettled, new TextEncoder().encode('{}'));
    await backtest.nc.flush();
    await waitUntil('a permission violation', async () => backtest.violations.length, (n) => n >= 1, { timeoutMs: 10_000 });

    const billing = await as('billing');
    billing.nc.publish(names.subjects.subscriptionChanged, new TextEncoder().encode('{}'));
    await billing.nc.flush();
    await new Promise((r) => setTimeout(r, 300));
    expect(billing.violations).toEqual([]);
    await Promise.all([gateway, backtest, billing].map((c) => c.nc.close()));
  });
});
