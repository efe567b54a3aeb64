/**
 * The alert rules and the delivery queue against a real PostgreSQL: a firing stored once
 * whichever replica inserts it, due deliveries taken by one replica at a time (two pools
 * racing), a lease that ends hands the delivery over under the same webhook id, the
 * outcomes of an attempt (delivered, retried, expired, the rule disabled), redelivery, the
 * per-owner limit under concurrent creation, and secret rotation's overlap.
 */
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import { ALERTS_MIGRATIONS_DIR, ALERTS_SCHEMA, DeliveryQueue, FiringLog, RuleStore, type NewRule } from '../src';

let db: TestDatabase;
let pool: Pool;
let other: Pool;
let rules: RuleStore;
let queue: DeliveryQueue;
let otherQueue: DeliveryQueue;

const DAY_MS = 86_400_000;
const FAILED = { status: 500, delivered: false, latencyMs: 12, excerpt: 'down', error: null };
const DELIVERED = { status: 204, delivered: true, latencyMs: 8, excerpt: '', error: null };

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: ALERTS_SCHEMA, dir: ALERTS_MIGRATIONS_DIR });
  pool = createPool(db.url);
  other = createPool(db.url);
  rules = new RuleStore(pool);
  queue = new DeliveryQueue(pool);
  otherQueue = new DeliveryQueue(other);
});
afterAll(async () => {
  await pool.end();
  await other.end();
  await db.drop();
});

let next = 0;
async function rule(overrides: Partial<NewRule> = {}): Promise<string> {
  const id = `alr_test${++next}`;
  const stored = await rules.create(
    { id, owner: 'owner-a', kind: 'motherlode', name: null, params: { minOre: 100 }, target: { url: 'https://example.com/hook', format: 'standard' }, enabled: true, ...overrides },
    `whsec_${'A'.repeat(43)}=`,
    1000,
  );
  expect(stored?.id).toBe(id);
  return id;
}

function firing(ruleId: string, key: string) {
  return { ruleId, dedupKey: key, webhookId: `msg_${key}`, payload: { type: 'alert.motherlode', key }, firedAt: new Date() };
}

describe('firings', () => {
  it('are stored once by their key, whichever replica inserts first, and queued only for an enabled rule with a target', async () => {
    const hooked = await rule();
    const streamOnly = await rule({ target: null });
    const [a, b] = await Promise.all([queue.fire([firing(hooked, 'k1'), firing(streamOnly, 'k2')]), otherQueue.fire([firing(hooked, 'k1'), firing(streamOnly, 'k2')])]);
    const stored = [...a, ...b];
    expect(stored.map((f) => f.webhookId).sort()).toEqual(['msg_k1', 'msg_k2']);
    expect(stored.find((f) => f.webhookId === 'msg_k1')?.queued).toBe(true);
    expect(stored.find((f) => f.webhookId === 'msg_k2')?.queued).toBe(false);
    expect(stored.every((f) => f.owner === 'owner-a')).toBe(true);
    expect(await queue.fire([firing(hooked, 'k1')])).toEqual([]);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM alerts.deliveries WHERE rule_id = ANY($1)', [[hooked, streamOnly]]);
    expect(rows[0].n).toBe(1);
  });
});

describe("an owner's firing log", () => {
  it("reads the owner's firings after an id, oldest first, page by page; not another owner's, nor test pings", async () => {
    const log = new FiringLog(pool);
    const mine = await rule({ owner: 'owner-log' });
    const theirs = await rule({ owner: 'owner-other' });
    const stored = await queue.fire([firing(mine, 'log1'), firing(theirs, 'log2'), firing(mine, 'log3'), firing(mine, 'log4')]);
    await queue.logTest(mine, 'msg_ping', { type: 'alert.test', ruleId: mine, roundId: null }, DELIVERED);
    const ids = stored.filter((f) => f.ruleId === mine).map((f) => f.id);
    expect(stored.find((f) => f.ruleId === theirs)?.owner).toBe('owner-other');
    const all = await log.after('owner-log', 0, 10);
    expect(all.map((f) => f.id)).toEqual(ids);
    const first = stored.find((f) => f.webhookId === 'msg_log1')!;
    expect(all.find((f) => f.id === first.id)).toEqual({ id: first.id, ruleId: mine, owner: 'owner-log', webhookId: 'msg_log1', payload: { type: 'alert.motherlode', key: 'log1' }, firedAt: expect.any(Date) });
    expect((await log.after('owner-log', ids[0]!, 1)).map((f) => f.id)).toEqual([ids[1]]);
    expect(await log.after('owner-log', ids[2]!, 10)).toEqual([]);
  });
});

describe('the queue', () => {
  beforeEach(async () => {
    await pool.query('DELETE FROM alerts.deliveries');
  });

  it('gives each due delivery to one replica while its lease lasts, however many race for it', async () => {
    const id = await rule();
    await queue.fire(Array.from({ length: 60 }, (_, i) => firing(id, `race${i}`)));
    const taken = (await Promise.all([queue.claim(25, 30_000), otherQueue.claim(25, 30_000), queue.claim(25, 30_000), otherQueue.claim(25, 30_000)])).flat();
    expect(taken).toHaveLength(60);
    expect(new Set(taken.map((c) => c.firingId)).size).toBe(60);
    expect(taken.every((c) => c.attempt === 1 && c.url === 'https://example.com/hook' && c.secrets.length === 1)).toBe(true);
    expect(await queue.claim(100, 30_000)).toEqual([]);
  });

  it('hands a delivery over once its lease ends without an outcome, under the same webhook id; the late outcome is only logged', async () => {
    const id = await rule();
    await queue.fire([firing(id, 'lease')]);
    const [first] = await queue.claim(10, 50);
    await new Promise((r) => setTimeout(r, 120));
    const [again] = await otherQueue.claim(10, 30_000);
    expect(again?.webhookId).toBe(first?.webhookId);
    expect(again?.attempt).toBe(2);
    // The first replica comes back late: its attempt is logged, the delivery stays the second's.
    expect(await queue.record(first!, DELIVERED, 1000, DAY_MS)).toEqual({ disabled: false, final: true, notice: null });
    expect(await otherQueue.record(again!, FAILED, 0, DAY_MS)).toEqual({ disabled: false, final: false, notice: null });
    const log = await queue.attemptsOf(id, 10);
    expect(log.map((a) => [a.attempt, a.status])).toEqual([
      [2, 500],
      [1, 204],
    ]);
    const [third] = await queue.claim(10, 30_000);
    expect(third?.attempt).toBe(3);
  });

  it('retries a failure after the delay it is given, and expires the firing when the schedule has ended', async () => {
    const id = await rule();
    await queue.fire([firing(id, 'retry')]);
    const [first] = await queue.claim(10, 30_000);
    expect((await queue.record(first!, FAILED, 200, DAY_MS)).final).toBe(false);
    expect(await queue.claim(10, 30_000)).toEqual([]);
    await new Promise((r) => setTimeout(r, 250));
    const [second] = await queue.claim(10, 30_000);
    expect(second?.attempt).toBe(2);
    expect(await queue.record(second!, FAILED, null, DAY_MS)).toEqual({ disabled: false, final: true, notice: null });
    expect((await queue.firingsOf(id, 1))[0]).toMatchObject({ state: 'expired', attempts: 2 });
  });

  it('clears the failing streak on a delivery; disables the rule once its endpoint has failed for the whole window', async () => {
    const id = await rule();
    await queue.fire([firing(id, 'd1'), firing(id, 'd2'), firing(id, 'd3')]);
    const [a, b, c] = await queue.claim(10, 30_000);
    await queue.record(a!, FAILED, 0, DAY_MS);
    expect((await rules.get('owner-a', id))?.failingSince).not.toBeNull();
    await queue.record(b!, DELIVERED, 0, DAY_MS);
    expect((await rules.get('owner-a', id))?.failingSince).toBeNull();
    // Failing for a day (set back, as a day cannot pass in a test).
    await pool.query("UPDATE alerts.rules SET failing_since = now() - interval '25 hours' WHERE id = $1", [id]);
    const recorded = await queue.record(c!, FAILED, 0, DAY_MS);
    expect(recorded).toMatchObject({ disabled: true, final: true, notice: { ruleId: id, owner: 'owner-a', payload: { type: 'alert.disabled', ruleId: id, roundId: null } } });
    expect(recorded.notice?.webhookId).toMatch(/^msg_[0-9a-f]{32}$/);
    const disabled = await rules.get('owner-a', id);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'endpoint_failing' });
    expect(await queue.claim(10, 30_000)).toEqual([]);
    // The owner is told in the rule's firings: a notice, delivered nowhere (its endpoint is what failed).
    const firings = await queue.firingsOf(id, 10);
    expect(firings.map((f) => f.state)).toEqual([null, 'expired', 'delivered', 'expired']);
    expect(firings[0]?.payload).toMatchObject({ type: 'alert.disabled', ruleId: id, roundId: null, reason: 'endpoint_failing' });
    expect(firings[0]?.id).toBe(recorded.notice?.id);
    // Its owner enables it again: the streak and the reason are gone.
    expect(await rules.update('owner-a', id, { enabled: true })).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it('redelivers a firing under its webhook id on request; not another rule\'s firing', async () => {
    const id = await rule();
    const otherRule = await rule();
    const [fired] = await queue.fire([firing(id, 'again')]);
    const [first] = await queue.claim(10, 30_000);
    await queue.record(first!, DELIVERED, 0, DAY_MS);
    expect(await queue.redeliver(otherRule, fired!.id)).toBe(false);
    expect(await queue.redeliver(id, fired!.id)).toBe(true);
    const [again] = await queue.claim(10, 30_000);
    expect(again).toMatchObject({ firingId: fired!.id, webhookId: 'msg_again', attempt: 2 });
  });

  it('counts the deliveries due and the oldest one\'s wait', async () => {
    const id = await rule();
    await queue.fire([firing(id, 'depth1'), firing(id, 'depth2')]);
    await pool.query("UPDATE alerts.deliveries SET next_at = now() - interval '3 seconds' WHERE firing_id = (SELECT id FROM alerts.firings WHERE dedup_key = 'depth1')");
    const depth = await queue.depth();
    expect(depth.due).toBe(2);
    expect(depth.oldestMs).toBeGreaterThanOrEqual(3000);
  });
});

describe('rules', () => {
  it('keeps an owner within its limit when creations race', async () => {
    const made = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rules.create({ id: `alr_limit${i}`, owner: 'owner-limit', kind: 'motherlode', name: null, params: {}, target: null, enabled: true }, `whsec_${'B'.repeat(43)}=`, 5),
      ),
    );
    expect(made.filter((r) => r !== null)).toHaveLength(5);
    expect(await rules.list('owner-limit')).toHaveLength(5);
  });

  it("are another owner's only by name: reads, changes and deletes of it find nothing", async () => {
    const id = await rule();
    expect(await rules.get('owner-b', id)).toBeNull();
    expect(await rules.update('owner-b', id, { name: 'mine' })).toBeNull();
    expect(await rules.delete('owner-b', id)).toBe(false);
    expect(await rules.rotateSecret('owner-b', id, `whsec_${'C'.repeat(43)}=`, 60_000)).toBe(false);
    expect(await rules.get('owner-a', id)).not.toBeNull();
  });

  it('sign with the new secret and the old one while the overlap lasts, then the new one alone', async () => {
    const id = await rule();
    const fresh = `whsec_${'D'.repeat(43)}=`;
    expect(await rules.rotateSecret('owner-a', id, fresh, 150)).toBe(true);
    await queue.fire([firing(id, 'rotate1')]);
    const during = (await queue.claim(10, 30_000)).find((c) => c.ruleId === id);
    expect(during?.secrets).toEqual([fresh, `whsec_${'A'.repeat(43)}=`]);
    await new Promise((r) => setTimeout(r, 200));
    await queue.fire([firing(id, 'rotate2')]);
    const after = (await queue.claim(10, 30_000)).find((c) => c.ruleId === id);
    expect(after?.secrets).toEqual([fresh]);
  });

  it('changes what is given and deletes with the firings, the queue and the log', async () => {
    const id = await rule();
    const changed = await rules.update('owner-a', id, { name: 'pool over 100', target: null, params: { minOre: 200 } });
    expect(changed).toMatchObject({ name: 'pool over 100', target: null, params: { minOre: 200 }, kind: 'motherlode' });
    await queue.fire([firing(id, 'gone')]);
    expect(await rules.delete('owner-a', id)).toBe(true);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM alerts.firings WHERE dedup_key = 'gone'");
    expect(rows[0].n).toBe(0);
    const before = await rules.version();
    await rule();
    expect(await rules.version()).not.toBe(before);
  });
});
