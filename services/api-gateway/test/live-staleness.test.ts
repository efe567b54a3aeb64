import { encodeMessage, connectBus, type NatsConnection } from '@gridlab/bus';
import { eventValidator, natsNames, type LiveSnapshot } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { answersOk, createTestDatabase, freePort, runCli, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';

const validateLiveSnapshot = eventValidator('liveUpdated');

const SECRET = 'gateway-test-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const STALE_AFTER_S = 2;

let db: TestDatabase;
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
let gateway: ServiceProcess;
let base: string;
let ops: string;
let apiKey: string;
let nc: NatsConnection;

function env(): NodeJS.ProcessEnv {
  return { DATABASE_URL: db.url, NATS_PREFIX: ns.natsPrefix, REDIS_PREFIX: ns.redisPrefix, API_KEY_HMAC_SECRET: SECRET, SESSION_SECRET: TEST_SESSION_SECRET, LOG_LEVEL: 'warn' };
}

function snapshot(roundId: number, slot: number, updatedAt: Date): LiveSnapshot {
  return {
    roundId,
    status: 'active',
    deployed: new Array<number>(25).fill(1000),
    count: new Array<number>(25).fill(1),
    totalDeployed: 25_000,
    totalMiners: 25,
    secondsLeft: 10,
    slot,
    startSlot: slot - 5,
    endSlot: slot + 20,
    prevRound: null,
    updatedAt: updatedAt.toISOString(),
  };
}

async function publish(s: LiveSnapshot): Promise<void> {
  nc.publish(names.subjects.liveUpdated, encodeMessage(validateLiveSnapshot, s));
  await nc.flush();
}

async function live(): Promise<{ status: number; age: string | null; body: LiveSnapshot & { stale: boolean } }> {
  const res = await fetch(`${base}/api/v1/live`, { headers: { Authorization: `Bearer ${apiKey}` } });
  return { status: res.status, age: res.headers.get('age'), body: (await res.json()) as LiveSnapshot & { stale: boolean } };
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    // 4 requests a second: under the key's 5/s.
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  const port = await freePort();
  const opsPort = await freePort();
  base = `http://127.0.0.1:${port}`;
  // The detailed /readyz (with each check's error) is on the ops port; the public one says only ok or not.
  ops = `http://127.0.0.1:${opsPort}`;
  gateway = await startService('services/api-gateway/src/main.ts', { ...env(), PORT: String(port), OPS_PORT: String(opsPort), LIVE_STALE_AFTER_S: String(STALE_AFTER_S) }, () =>
    answersOk(`${base}/healthz`),
  );
  const granted = await runCli(['admin', 'grant', '--owner', OWNER, '--days', '1'], { ...process.env, ...env() });
  apiKey = (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
  nc = await connectBus({ servers: ns.natsUrl, name: 'test', logger: createLogger({ service: 't', silent: true }) });
});
afterAll(async () => {
  await nc.drain();
  await gateway.stop();
  await db.drop();
  await ns.cleanup();
});

describe('stale live data', () => {
  it('reports the feed as degraded in /readyz (still ready) before any snapshot', async () => {
    const res = await fetch(`${ops}/readyz`);
    const report = (await res.json()) as { ready: boolean; degraded?: string[]; checks: Record<string, { ok: boolean; error?: string }> };
    expect(res.status).toBe(200);
    expect(report.degraded).toEqual(['live']);
    expect(report.checks['live']).toMatchObject({ ok: false, advisory: true, error: 'no live snapshot received yet' });
  });

  it('marks /live stale (Age header, stale: true) and /readyz degraded once no snapshot arrived for the threshold', async () => {
    const built = new Date();
    await publish(snapshot(3056, 250_500_000, built));
    const fresh = await until(live, (r) => r.status === 200, 'the first snapshot');
    expect(fresh.body).toMatchObject({ roundId: 3056, stale: false });
    expect(Number(fresh.age)).toBeLessThanOrEqual(STALE_AFTER_S);

    // Nothing arrives any more: the same round is served, marked stale, with its age.
    const stale = await until(live, (r) => r.body.stale, 'the stale mark');
    expect(stale.body.roundId).toBe(3056);
    expect(Number(stale.age)).toBeGreaterThanOrEqual(STALE_AFTER_S);
    const report = (await (await fetch(`${ops}/readyz`)).json()) as { ready: boolean; degraded?: string[]; checks: Record<string, { ok: boolean; error?: string }> };
    expect(report.ready).toBe(true);
    expect(report.degraded).toEqual(['live']);
    expect(report.checks['live']!.error).toMatch(/live feed stale: no snapshot for \d+ s \(threshold 2 s\)/);
  });

  it('replaces a stale snapshot of a higher round and slot with one of the chain running now, and is fresh again', async () => {
    // A chain started again from genesis: lower slot and round, observed now.
    await publish(snapshot(3004, 250_000_100, new Date()));
    const current = await until(live, (r) => r.body.roundId === 3004, 'the current chain');
    expect(current.body.stale).toBe(false);
    expect(Number(current.age)).toBeLessThanOrEqual(1);
    const report = (await (await fetch(`${ops}/readyz`)).json()) as { degraded?: string[]; checks: Record<string, { ok: boolean }> };
    expect(report.degraded).toBeUndefined();
    expect(report.checks['live']!.ok).toBe(true);
    // A late delivery of a lower slot, built just before the held one, does not replace it.
    await publish(snapshot(3003, 250_000_050, new Date(Date.parse(current.body.updatedAt) - 100)));
    await new Promise((r) => setTimeout(r, 300));
    expect((await live()).body.roundId).toBe(3004);
  });
});
