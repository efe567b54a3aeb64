/**
 * Delivery end to end below the service: firings queued in a real PostgreSQL, delivered by
 * two dispatchers (two replicas) over HTTP to a real local receiver that verifies every
 * request with the `standardwebhooks` package, as a subscriber's receiver would. The
 * receiver goes down and comes back: nothing is lost, and no firing is accepted twice
 * under one webhook id. An endpoint down for the whole window gets its rule disabled.
 */
import { ALERTS_MIGRATIONS_DIR, ALERTS_SCHEMA, DeliveryQueue, RuleStore } from '@gridlab/alerts-store';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { createTestDatabase, startWebhookReceiver, type TestDatabase, type WebhookReceipt, type WebhookReceiver } from '@gridlab/testing';
import { newSecret } from '@gridlab/webhooks';
import { Webhook } from 'standardwebhooks';
import { webhookTransport } from '../src/adapters/http/webhook-transport';
import { Dispatcher, type DispatcherOptions } from '../src/app/dispatcher';

/** Whether a receipt verifies with `secret`, as a subscriber's receiver checks it. */
function verifies(secret: string, r: WebhookReceipt): boolean {
  try {
    new Webhook(secret).verify(r.raw, r.headers);
    return true;
  } catch {
    return false;
  }
}
const accepted = (receiver: WebhookReceiver) => receiver.receipts.filter((r) => r.status === 204);

let db: TestDatabase;
const pools: Pool[] = [];
let rules: RuleStore;
const logger = createLogger({ service: 'notifier-test', level: 'error' });

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: ALERTS_SCHEMA, dir: ALERTS_MIGRATIONS_DIR });
  pools.push(createPool(db.url), createPool(db.url));
  rules = new RuleStore(pools[0]!);
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db.drop();
});

/** A dispatcher as one replica runs it: its own pool, a transport allowed to reach loopback over http on `port`. */
function replica(pool: Pool, port: number, options: Partial<DispatcherOptions>, attempted: (ok: boolean) => void = () => undefined, disabled: (id: string) => void = () => undefined) {
  const transport = webhookTransport({ allowHttp: true, allowPrivate: true, ports: [port] }, { timeoutMs: 2000 });
  return new Dispatcher(new DeliveryQueue(pool), transport, { attempted: (_c, o) => attempted(o.delivered), disabled }, logger, {
    batch: 20,
    leaseMs: 10_000,
    pollMs: 50,
    now: () => new Date(),
    random: Math.random,
    ...options,
  });
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

it('delivers every firing once, signed, through a receiver outage, with two replicas taking from one queue', async () => {
  const secret = newSecret();
  const receiver = await startWebhookReceiver();
  const id = 'alr_outage';
  await rules.create({ id, owner: 'owner-a', kind: 'motherlode', name: 'pool', params: { minOre: 1 }, target: { url: receiver.url, format: 'standard' }, enabled: true }, secret, 20);
  // The schedule 600 times faster: its 5 s, 30 s, 2 min... are 8 ms, 50 ms, 200 ms...; an outage of "10 minutes" is a second.
  const dispatchers = pools.map((p) => replica(p, receiver.port, { timeScale: 600 }));
  dispatchers.forEach((d) => d.start());
  const queue = new DeliveryQueue(pools[0]!);
  try {
    const fire = async (from: number, to: number) => {
      await queue.fire(Array.from({ length: to - from }, (_, i) => ({ ruleId: id, dedupKey: `${id}:${from + i}`, webhookId: `msg_${from + i}`, payload: { type: 'alert.motherlode', roundId: from + i }, firedAt: new Date() })));
      dispatchers.forEach((d) => d.wake());
    };
    await fire(0, 30);
    await until(() => accepted(receiver).length === 30, 10_000);
    receiver.status = 503;
    await fire(30, 80);
    await new Promise((r) => setTimeout(r, 1000));
    receiver.status = 204;
    await until(() => new Set(accepted(receiver).map((r) => r.id)).size === 80, 20_000);
  } finally {
    await Promise.all(dispatchers.map((d) => d.stop()));
    await receiver.stop();
  }
  const ids = accepted(receiver).map((r) => r.id);
  expect(receiver.receipts.every((r) => verifies(secret, r))).toBe(true);
  expect(ids).toHaveLength(80);
  expect(new Set(ids).size).toBe(80);
  // The outage was seen and retried through, under the same ids.
  expect(receiver.receipts.filter((r) => r.status !== 204).length).toBeGreaterThan(0);
  const states = await queue.firingsOf(id, 100);
  expect(states.every((f) => f.state === 'delivered')).toBe(true);
  expect(Math.max(...states.map((f) => f.attempts))).toBeGreaterThan(1);
});

it('signs with both secrets while a rotation overlaps: a receiver holding either verifies it', async () => {
  const old = newSecret();
  const fresh = newSecret();
  const oldReceiver = await startWebhookReceiver();
  const id = 'alr_rotate';
  await rules.create({ id, owner: 'owner-a', kind: 'motherlode', name: null, params: {}, target: { url: oldReceiver.url, format: 'standard' }, enabled: true }, old, 20);
  await rules.rotateSecret('owner-a', id, fresh, 60_000);
  const freshReceiver = await startWebhookReceiver();
  const queue = new DeliveryQueue(pools[0]!);
  try {
    await queue.fire([{ ruleId: id, dedupKey: 'rot1', webhookId: 'msg_rot1', payload: { type: 'alert.motherlode' }, firedAt: new Date() }]);
    await replica(pools[0]!, oldReceiver.port, {}).drainOnce();
    await rules.update('owner-a', id, { target: { url: freshReceiver.url, format: 'standard' } });
    await queue.fire([{ ruleId: id, dedupKey: 'rot2', webhookId: 'msg_rot2', payload: { type: 'alert.motherlode' }, firedAt: new Date() }]);
    await replica(pools[0]!, freshReceiver.port, {}).drainOnce();
  } finally {
    await oldReceiver.stop();
    await freshReceiver.stop();
  }
  expect(oldReceiver.receipts.map((r) => [r.id, verifies(old, r)])).toEqual([['msg_rot1', true]]);
  expect(freshReceiver.receipts.map((r) => [r.id, verifies(fresh, r), verifies(old, r)])).toEqual([['msg_rot2', true, true]]);
});

it('refuses a target the policy does not allow at delivery, and disables a rule whose endpoint fails for the whole window', async () => {
  const id = 'alr_dead';
  await rules.create({ id, owner: 'owner-a', kind: 'motherlode', name: null, params: {}, target: { url: 'http://127.0.0.1/hook', format: 'standard' }, enabled: true }, newSecret(), 20);
  const queue = new DeliveryQueue(pools[0]!);
  const disabled: { ruleId: string; notice: unknown }[] = [];
  // Loopback is not allowed here: every attempt is refused before any request. A day is 86 ms at
  // this scale. One firing's retries end within the day (by design: the rule is disabled once no
  // retry is left to lose), so the rule goes on firing, as a live rule does, until it is disabled.
  const strict = new Dispatcher(new DeliveryQueue(pools[0]!), webhookTransport({ allowHttp: true }), { attempted: () => undefined, disabled: (ruleId, notice) => disabled.push({ ruleId, notice }) }, logger, {
    batch: 5,
    leaseMs: 10_000,
    pollMs: 20,
    now: () => new Date(),
    random: () => 0,
    timeScale: 1_000_000,
  });
  strict.start();
  let n = 0;
  try {
    await until(async () => {
      n++;
      await queue.fire([{ ruleId: id, dedupKey: `dead${n}`, webhookId: `msg_dead${n}`, payload: { type: 'alert.motherlode' }, firedAt: new Date() }]);
      strict.wake();
      return (await rules.get('owner-a', id))?.enabled === false;
    }, 10_000);
  } finally {
    await strict.stop();
  }
  // The notice stored among its firings is handed on (the notifier publishes it to the owner's alert streams).
  expect(disabled).toEqual([{ ruleId: id, notice: expect.objectContaining({ ruleId: id, owner: 'owner-a', payload: expect.objectContaining({ type: 'alert.disabled', reason: 'endpoint_failing' }) }) }]);
  const log = await queue.attemptsOf(id, 50);
  expect(log.length).toBeGreaterThan(0);
  expect(log.every((a) => a.status === null && /^target refused: the target is not a public address/.test(a.error ?? ''))).toBe(true);
  expect((await rules.get('owner-a', id))?.disabledReason).toBe('endpoint_failing');
});
