/**
 * GET /alerts/stream on two gateway replicas over a real PostgreSQL (the notifier's
 * `alerts` schema) and NATS: firings stored as the notifier stores them and published on
 * `alerts.firing.stored` as it publishes them reach their owner's streams only, on every
 * replica; Last-Event-ID replays the owner's firings after it, oldest first, page after
 * page, then the live ones, none twice and none lost when firings commit out of id order;
 * test pings are not sent, a disabled rule's notice is; a key holds no more streams than its
 * cap; a bad Last-Event-ID costs no token.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALERTS_MIGRATIONS_DIR, ALERTS_SCHEMA, DeliveryQueue, FiringLog, RuleStore, type StoredFiring } from '@gridlab/alerts-store';
import { connectBus, encodeEvent, type NatsConnection } from '@gridlab/bus';
import { natsNames, type AlertStreamFiring } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { createTestDatabase, testNamespace, waitUntil, type TestDatabase } from '@gridlab/testing';
import { followAlertFirings } from '../src/adapters/nats/alert-feed';
import type { Caller } from '../src/app/access';
import { StreamRegistry } from '../src/domain/stream-registry';
import { AlertStream } from '../src/http/alert-stream';
import { createApp, type AppDeps } from '../src/http/app';
import { trustedProxies } from '../src/http/client-address';
import type { GatewayStreams } from '../src/http/operations';
import { createGatewayServer } from '../src/http/server';
import { readEvents } from './miners-harness';

const OWNER_A = `sub_${'A'.repeat(22)}`;
const OWNER_B = `sub_${'B'.repeat(22)}`;
const OWNER_C = `sub_${'C'.repeat(22)}`;
const KEYS: Record<string, string> = { 'Bearer grid_a': OWNER_A, 'Bearer grid_b': OWNER_B, 'Bearer grid_c': OWNER_C };
/** Open streams a key may hold on a replica. */
const STREAMS_PER_KEY = 5;
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
const logger = createLogger({ service: 'test', silent: true });

let db: TestDatabase;
let pool: Pool;
let nc: NatsConnection;
let queue: DeliveryQueue;
let rules: RuleStore;
let ruleA: string;
let ruleB: string;
let replicas: Replica[];

interface Replica {
  readonly url: string;
  /** Requests admitted (each takes a token). */
  admitted: number;
  close(): Promise<void>;
}

/** A gateway replica: its own alert stream following the feed, requests admitted by their key's owner. */
async function startReplica(): Promise<Replica> {
  const stream = new AlertStream(new FiringLog(pool));
  const stop = followAlertFirings(nc, names, stream, logger);
  const replica = { url: '', admitted: 0, close: async () => undefined };
  const admit = async (who: { authorization?: string }): Promise<Caller> => {
    replica.admitted++;
    const subscriberId = KEYS[String(who.authorization)];
    if (subscriberId === undefined) throw new Error('unknown key');
    return { subscriberId, keyHash: Buffer.from(subscriberId), decision: { allowed: true, limit: 60, remaining: 59, resetSeconds: 1, retryAfterSeconds: 0 }, paidUntilMs: Date.now() + 86_400_000, address: '127.0.0.1' };
  };
  const deps = {
    access: { admit, admitNow: () => undefined, admitAddress: async () => ({ allowed: true, limit: 60, remaining: 59, resetSeconds: 1, retryAfterSeconds: 0 }) },
    dashboard: { checkOrigin: () => undefined, session: () => undefined, admit: () => undefined },
    streams: new StreamRegistry({ perKey: STREAMS_PER_KEY, perAddress: 40 }),
    logger,
    trustedProxies: trustedProxies([]),
    webRoot: '/nonexistent',
    publicRpcUrl: '',
  } as unknown as AppDeps;
  const server: Server = createGatewayServer(createApp(deps), deps, { alerts: stream } as GatewayStreams);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  await nc.flush();
  return Object.assign(replica, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((closed) => {
        stop();
        stream.close();
        server.closeAllConnections();
        server.close(() => closed());
      }),
  });
}

let keys = 0;
/** Firings of `ruleId` stored as the notifier stores them (not published). */
async function store(ruleId: string, count = 1): Promise<StoredFiring[]> {
  const firings = Array.from({ length: count }, () => {
    const key = `f${++keys}`;
    return { ruleId, dedupKey: key, webhookId: `msg_${key}`, payload: { type: 'alert.motherlode', ruleId, roundId: keys, minOre: 1, poolBaseUnits: 1e11 }, firedAt: new Date() };
  });
  return (await queue.fire(firings)).sort((a, b) => a.id - b.id);
}

/** Published as the notifier publishes a stored firing. */
async function publish(...firings: StoredFiring[]): Promise<void> {
  for (const f of firings) nc.publish(names.subjects.alertFired, encodeEvent('alertFired', { subscriberId: f.owner, ...asStreamed(f) }));
  await nc.flush();
}

function asStreamed(f: StoredFiring): AlertStreamFiring {
  return { id: f.id, ruleId: f.ruleId, webhookId: f.webhookId, firedAt: f.firedAt.toISOString(), payload: f.payload as AlertStreamFiring['payload'] };
}

const expected = (f: StoredFiring) => ({ event: 'firing', id: String(f.id), data: asStreamed(f) });

async function open(replica: Replica, key: string, lastEventId?: number | string): Promise<Response> {
  const res = await fetch(`${replica.url}/api/v1/alerts/stream`, { headers: { Authorization: key, ...(lastEventId === undefined ? {} : { 'Last-Event-ID': String(lastEventId) }) } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return res;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: ALERTS_SCHEMA, dir: ALERTS_MIGRATIONS_DIR });
  pool = createPool(db.url);
  queue = new DeliveryQueue(pool);
  rules = new RuleStore(pool);
  nc = await connectBus({ servers: ns.natsUrl, name: 'alert-stream-test', logger });
  const rule = async (id: string, owner: string) => {
    await rules.create({ id, owner, kind: 'motherlode', name: null, params: { minOre: 1 }, target: null, enabled: true }, `whsec_${'A'.repeat(43)}=`, 20);
    return id;
  };
  ruleA = await rule(`alr_${'a'.repeat(22)}`, OWNER_A);
  ruleB = await rule(`alr_${'b'.repeat(22)}`, OWNER_B);
  replicas = [await startReplica(), await startReplica()];
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await nc.drain();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('the alert stream', () => {
  it("sends each firing to its owner's streams on every replica, and to no other owner", async () => {
    const [a1, a2, b] = [await open(replicas[0]!, 'Bearer grid_a'), await open(replicas[1]!, 'Bearer grid_a'), await open(replicas[1]!, 'Bearer grid_b')];
    const [theirs] = await store(ruleB);
    const [mine] = await store(ruleA);
    await publish(theirs!, mine!);
    expect(await readEvents(a1.body!, 1)).toEqual([expected(mine!)]);
    expect(await readEvents(a2.body!, 1)).toEqual([expected(mine!)]);
    expect(await readEvents(b.body!, 1)).toEqual([expected(theirs!)]);
    await Promise.all([a1, a2, b].map((r) => r.body!.cancel()));
  });

  it('replays the firings after Last-Event-ID, oldest first and page after page, then goes on live with none twice', async () => {
    const [first, ...rest] = await store(ruleA, 1201);
    const res = await open(replicas[0]!, 'Bearer grid_a', first!.id);
    // The newest replayed firing's message arrives after the replay read it; then a new firing.
    const [next] = await store(ruleA);
    await publish(rest[rest.length - 1]!, next!);
    const events = await readEvents(res.body!, rest.length + 1, 20_000);
    expect(events).toEqual([...rest, next!].map(expected));
    await res.body!.cancel();
  });

  it('sends a live firing whose id is below the last one the client has (firings of two notifiers commit out of order)', async () => {
    const [early, late] = await store(ruleA, 2);
    const res = await open(replicas[1]!, 'Bearer grid_a', late!.id);
    await publish(early!);
    expect(await readEvents(res.body!, 1)).toEqual([expected(early!)]);
    await res.body!.cancel();
  });

  it("leaves test pings out and sends a disabled rule's notice", async () => {
    const hooked = `alr_${'c'.repeat(22)}`;
    await rules.create({ id: hooked, owner: OWNER_A, kind: 'motherlode', name: null, params: { minOre: 1 }, target: { url: 'https://example.com/hook', format: 'standard' }, enabled: true }, `whsec_${'A'.repeat(43)}=`, 20);
    const [before] = await store(hooked);
    await queue.logTest(hooked, 'msg_ping', { type: 'alert.test', ruleId: hooked, roundId: null }, { status: 204, delivered: true, latencyMs: 3, excerpt: '', error: null });
    // Its endpoint has failed for a day (set back, as a day cannot pass in a test): the rule is disabled with a notice.
    const [claimed] = await queue.claim(10, 30_000);
    await pool.query("UPDATE alerts.rules SET failing_since = now() - interval '25 hours' WHERE id = $1", [hooked]);
    const { notice } = await queue.record(claimed!, { status: 500, delivered: false, latencyMs: 3, excerpt: '', error: null }, 0, 86_400_000);
    expect(notice?.payload).toMatchObject({ type: 'alert.disabled', ruleId: hooked });
    const res = await open(replicas[0]!, 'Bearer grid_a', before!.id - 1);
    expect(await readEvents(res.body!, 2)).toEqual([expected(before!), expected(notice!)]);
    await res.body!.cancel();
  });

  it("holds a key to its cap of open streams (429 too_many_streams), and gives a closed stream's place back", async () => {
    const replica = replicas[1]!;
    const held = await Promise.all(Array.from({ length: STREAMS_PER_KEY }, () => open(replica, 'Bearer grid_c')));
    const refused = await fetch(`${replica.url}/api/v1/alerts/stream`, { headers: { Authorization: 'Bearer grid_c' } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('too_many_streams');
    await held[0]!.body!.cancel();
    const again = await waitUntil(
      'a place given back',
      () => fetch(`${replica.url}/api/v1/alerts/stream`, { headers: { Authorization: 'Bearer grid_c' } }),
      (res) => {
        if (res.status !== 200) void res.body?.cancel();
        return res.status === 200;
      },
      { timeoutMs: 5_000, everyMs: 50 },
    );
    await Promise.all([again, ...held.slice(1)].map((r) => r.body!.cancel()));
  });

  it('refuses a Last-Event-ID that is not a firing id with 400 before taking a token', async () => {
    const replica = replicas[0]!;
    const admitted = replica.admitted;
    for (const bad of ['abc', '-1', '1.5']) {
      const res = await fetch(`${replica.url}/api/v1/alerts/stream`, { headers: { Authorization: 'Bearer grid_a', 'Last-Event-ID': bad } });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect(replica.admitted).toBe(admitted);
  });
});
