/**
 * The notifier as a process, two replicas, against real PostgreSQL and NATS: a rule stored
 * in its schema, the indexer's live snapshots published on NATS, and a subscriber's
 * receiver that verifies each request with the `standardwebhooks` package. The pool
 * crossing a rule's bar reaches the receiver once, signed, though both replicas evaluate
 * every snapshot; a rule changed by its owner is applied without a restart.
 */
import { RuleStore } from '@gridlab/alerts-store';
import { connectBus, decodeEvent, encodeEvent, sendCommand, type NatsConnection } from '@gridlab/bus';
import { natsNames, ORE_BASE_UNITS, type AlertFired, type LiveSnapshot } from '@gridlab/contracts';
import { createPool, type Pool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { createTestDatabase, startNotifierFor, startWebhookReceiver, testNamespace, type ServiceProcess, type TestDatabase, type WebhookReceiver } from '@gridlab/testing';
import { newSecret } from '@gridlab/webhooks';
import { Webhook } from 'standardwebhooks';

const SOL = 1_000_000_000;
/** The rules' owner, a subscriber id as the gateway names callers. */
const OWNER = `sub_${'A'.repeat(22)}`;
const RULE = `alr_${'e'.repeat(22)}`;
const secret = newSecret();
let receiver: WebhookReceiver;
/** What the receiver got, each checked against the secret of the rules this file stores directly. */
const received = () =>
  receiver.receipts.map((r) => {
    let verified = true;
    try {
      new Webhook(secret).verify(r.raw, r.headers);
    } catch {
      verified = false;
    }
    return { id: r.id, verified, body: JSON.parse(r.raw) as { type: string; ruleId: string; roundId: number | null }, raw: r.raw, headers: r.headers };
  });
let db: TestDatabase;
let pool: Pool;
let nc: NatsConnection;
const replicas: ServiceProcess[] = [];
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);

function snapshot(roundId: number, poolOre: number): LiveSnapshot {
  const deployed = Array.from({ length: 25 }, () => SOL);
  return {
    roundId,
    status: 'active',
    deployed,
    count: deployed.map(() => 2),
    totalDeployed: 25 * SOL,
    totalMiners: 30,
    secondsLeft: 30,
    slot: 1_000,
    startSlot: 900,
    endSlot: 1_100,
    prevRound: null,
    updatedAt: new Date().toISOString(),
    game: {
      payoutRule: 'returns',
      oreReward: ORE_BASE_UNITS,
      motherlodePool: poolOre * ORE_BASE_UNITS,
      productionCost: 2 * SOL,
      splitSquares: null,
      evStakeLamports: SOL / 10,
      evOrePriceLamports: 2 * SOL,
      evPerSol: deployed.map(() => 0),
    },
  };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  db = await createTestDatabase();
  nc = await connectBus({ servers: ns.natsUrl, name: 'notifier-test', logger: createLogger({ service: 'notifier-test', level: 'error' }) });
  for (let i = 0; i < 2; i++) {
    replicas.push((await startNotifierFor(receiver, { databaseUrl: db.url, natsPrefix: ns.natsPrefix }, { NOTIFIER_RULES_REFRESH_MS: '100', NOTIFIER_RULES_PER_KEY: '4' })).process);
  }
  pool = createPool(db.url);
}, 120_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await nc?.drain();
  await pool?.end();
  await db?.drop();
  await receiver?.stop();
});

it('posts the pool crossing a rule\'s bar once, signed, and tells the alert streams once, though both replicas see every snapshot; a changed bar applies without a restart', async () => {
  const streamed: AlertFired[] = [];
  const following = nc.subscribe(names.subjects.alertFired, {
    callback: (_e, msg) => {
      streamed.push(decodeEvent('alertFired', msg.data));
    },
  });
  const rules = new RuleStore(pool);
  const rule = await rules.create(
    { id: RULE, owner: OWNER, kind: 'motherlode', name: 'pool', params: { minOre: 100 }, target: { url: receiver.url, format: 'standard' }, enabled: true },
    secret,
    20,
  );
  expect(rule).not.toBeNull();
  // Both replicas read the rule (their refresh is 100 ms); a snapshot below the bar fires nothing.
  await new Promise((r) => setTimeout(r, 400));
  nc.publish(names.subjects.liveUpdated, encodeEvent('liveUpdated', snapshot(7, 90)));
  await new Promise((r) => setTimeout(r, 300));
  expect(received()).toEqual([]);
  for (let i = 0; i < 5; i++) nc.publish(names.subjects.liveUpdated, encodeEvent('liveUpdated', snapshot(7, 120)));
  await until(() => received().length >= 1, 10_000);
  await new Promise((r) => setTimeout(r, 500));
  expect(received()).toHaveLength(1);
  expect(received()[0]).toMatchObject({ verified: true, body: { type: 'alert.motherlode', ruleId: RULE, roundId: 7 } });
  expect(received()[0]!.id).toMatch(/^msg_/);
  // The owner's alert streams get the same firing under the same webhook id, once.
  expect(streamed).toEqual([{ subscriberId: OWNER, id: expect.any(Number), ruleId: RULE, webhookId: received()[0]!.id, firedAt: expect.any(String), payload: received()[0]!.body }]);

  // The owner raises the bar above the pool: the next round's snapshots fire nothing.
  await rules.update(OWNER, RULE, { params: { minOre: 500 } });
  await new Promise((r) => setTimeout(r, 400));
  nc.publish(names.subjects.liveUpdated, encodeEvent('liveUpdated', snapshot(8, 90)));
  nc.publish(names.subjects.liveUpdated, encodeEvent('liveUpdated', snapshot(8, 120)));
  await new Promise((r) => setTimeout(r, 500));
  expect(received()).toHaveLength(1);
  nc.publish(names.subjects.liveUpdated, encodeEvent('liveUpdated', snapshot(8, 600)));
  await until(() => received().length === 2, 10_000);
  expect(received()[1]).toMatchObject({ verified: true, body: { ruleId: RULE, roundId: 8 } });
  await until(() => streamed.length === 2, 5_000);
  expect(streamed[1]).toMatchObject({ subscriberId: OWNER, webhookId: received()[1]!.id });
  following.unsubscribe();
});

it("posts a strategy's decision to its strategy_signal rule as soon as lab-forward records it", async () => {
  const rules = new RuleStore(pool);
  const strategyId = 'stg_1111111111111111111111';
  await rules.create(
    { id: 'alr_signal', owner: OWNER, kind: 'strategy_signal', name: null, params: { strategyId }, target: { url: receiver.url, format: 'standard' }, enabled: true },
    secret,
    20,
  );
  await new Promise((r) => setTimeout(r, 400));
  const decision = { bet: true, reason: 'bet' as const, squares: [3, 17], stakesLamports: [SOL / 100, SOL / 50] };
  nc.publish(names.subjects.forwardDecided, encodeEvent('forwardDecided', { strategyId, roundId: 42, decision }));
  nc.publish(names.subjects.forwardDecided, encodeEvent('forwardDecided', { strategyId: 'stg_2222222222222222222222', roundId: 42, decision }));
  await until(() => received().some((r) => r.body.ruleId === 'alr_signal'), 10_000);
  await new Promise((r) => setTimeout(r, 300));
  const signals = received().filter((r) => r.body.ruleId === 'alr_signal');
  expect(signals).toHaveLength(1);
  expect(signals[0]).toMatchObject({ verified: true, body: { type: 'alert.strategy_signal', roundId: 42 } });
  expect(JSON.stringify(signals[0]!.body)).toContain('"squares":[3,17]');
});

describe('the owners\' commands', () => {
  const ALICE = 'sub_1111111111111111111111';
  const BOB = 'sub_2222222222222222222222';
  const send = <K extends Parameters<typeof sendCommand>[2]>(name: K, request: Parameters<typeof sendCommand<K>>[3]) => sendCommand(nc, names, name, request, { timeoutMs: 10_000 });
  const failure = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (error) {
      return error as { kind: string; code: string; errors?: { path: string; message: string }[] };
    }
    throw new Error('the command succeeded');
  };
  const hook = () => ({ url: receiver.url, format: 'standard' as const });

  it('refuses a rule with every problem named by its path, and a target the policy does not allow', async () => {
    const bad = await failure(send('alertCreate', { subscriberId: ALICE, body: { kind: 'square_ev', minEvPerSol: 5000, stakeLamports: 0, fromSlotsBeforeEnd: 10 } }));
    expect(bad.kind).toBe('input');
    expect(bad.errors?.map((e) => e.path).sort()).toEqual(['/minEvPerSol', '/stakeLamports']);
    const port = await failure(send('alertCreate', { subscriberId: ALICE, body: { kind: 'motherlode', minOre: 10, target: { url: 'http://127.0.0.1:1/x' } } }));
    expect(port.errors).toEqual([{ path: '/target/url', message: expect.stringMatching(/port 1 is not allowed/) }]);
  });

  it("creates, reads, changes and deletes a subscriber's rules; another's answer as missing; the limit holds", async () => {
    const created = await send('alertCreate', { subscriberId: ALICE, body: { kind: 'wallet', name: ' whale ', addresses: ['So11111111111111111111111111111111111111112'], on: ['win', 'deploy'], target: hook() } });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.alert).toMatchObject({ kind: 'wallet', name: 'whale', on: ['deploy', 'win'], enabled: true, target: { format: 'standard' }, disabledReason: null });
    const id = created.alert.id;
    expect(id).toMatch(/^alr_[1-9A-HJ-NP-Za-km-z]{22}$/);
    expect((await send('alertList', { subscriberId: ALICE })).alerts.map((a) => a.id)).toContain(id);
    expect((await failure(send('alertGet', { subscriberId: BOB, id }))).code).toBe('alert_not_found');
    expect((await failure(send('alertDelete', { subscriberId: BOB, id }))).code).toBe('alert_not_found');
    const changed = await send('alertUpdate', { subscriberId: ALICE, id, body: { on: ['top_miner'], name: null } });
    expect(changed.alert).toMatchObject({ id, name: null, on: ['top_miner'], kind: 'wallet' });
    const kindChange = await failure(send('alertUpdate', { subscriberId: ALICE, id, body: { kind: 'motherlode' } }));
    expect(kindChange.errors?.[0]?.path).toBe('/kind');
    const streamOnly = await send('alertCreate', { subscriberId: ALICE, body: { kind: 'motherlode', minOre: 1 } });
    expect(streamOnly.secret).toBeNull();
    await send('alertCreate', { subscriberId: ALICE, body: { kind: 'motherlode', minOre: 2 } });
    await send('alertCreate', { subscriberId: ALICE, body: { kind: 'motherlode', minOre: 2.5 } });
    // Alice now holds 4 (the limit set for this test): the fifth is refused, Bob's first is not.
    expect((await failure(send('alertCreate', { subscriberId: ALICE, body: { kind: 'motherlode', minOre: 3 } }))).code).toBe('alert_limit_reached');
    await send('alertCreate', { subscriberId: BOB, body: { kind: 'motherlode', minOre: 3 } });
    expect(await send('alertDelete', { subscriberId: ALICE, id: streamOnly.alert.id })).toEqual({ ok: true });
    expect((await failure(send('alertGet', { subscriberId: ALICE, id: streamOnly.alert.id }))).code).toBe('alert_not_found');
  });

  it('sends a test ping signed with the secret shown at creation, logs it, redelivers it under its id, and rotates the secret', async () => {
    const created = await send('alertCreate', { subscriberId: BOB, body: { kind: 'motherlode', minOre: 1000, target: hook() } });
    const id = created.alert.id;
    const verifier = new Webhook(created.secret!);
    const before = received().length;
    const ping = await send('alertTest', { subscriberId: BOB, id });
    expect(ping).toMatchObject({ delivered: true, status: 204, attempt: 1, error: null });
    const got = received().slice(before);
    expect(got.map((r) => [r.id, r.body.type, r.body.ruleId])).toEqual([[ping.webhookId, 'alert.test', id]]);
    // Signed with the secret shown at creation (the receiver's own check was for another rule's).
    expect(() => verifier.verify(got[0]!.raw, got[0]!.headers)).not.toThrow();
    const log = await send('alertDeliveries', { subscriberId: BOB, id });
    expect(log.firings).toHaveLength(1);
    expect(log.firings[0]).toMatchObject({ webhookId: ping.webhookId, state: 'delivered', attempts: [{ attempt: 1, status: 204 }], payload: { type: 'alert.test' } });
    const again = await send('alertRedeliver', { subscriberId: BOB, id, firingId: log.firings[0]!.id });
    expect(again).toEqual({ queued: true, webhookId: ping.webhookId });
    await until(() => received().filter((r) => r.id === ping.webhookId).length === 2, 10_000);
    expect((await failure(send('alertRedeliver', { subscriberId: BOB, id, firingId: 999_999 }))).code).toBe('firing_not_found');
    const rotated = await send('alertRotateSecret', { subscriberId: BOB, id });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.previousRetiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    // During the overlap a delivery verifies with the old secret and with the new one.
    const second = await send('alertTest', { subscriberId: BOB, id });
    const after = received().find((r) => r.id === second.webhookId)!;
    expect(() => verifier.verify(after.raw, after.headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(after.raw, after.headers)).not.toThrow();
  });
});
