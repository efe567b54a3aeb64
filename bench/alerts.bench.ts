import { connectBus, encodeEvent, type NatsConnection } from '@gridlab/bus';
import { encodeBase58 } from '@gridlab/chain';
import { natsNames, ORE_BASE_UNITS, type LiveSnapshot, type MinerRound, type Round } from '@gridlab/contracts';
import { createPool, type Pool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { createTestDatabase, startNotifierFor, startWebhookReceiver, testNamespace, type ServiceProcess, type WebhookReceipt } from '@gridlab/testing';
import { Rng } from './miner-ledger-data';
import type { Bench } from './types';

/** Active rules on the one replica, by kind. */
const RULES = { wallet: 7000, motherlode: 1000, square_ev: 1000, event: 1000 } as const;
const WALLETS = 5000;
const MINERS_A_ROUND = 400;
const ROUNDS = 60;
/** Rounds settled before the measured ones: the process's first statements and connections (a cold start) are not the steady state. */
const WARM_UP_ROUNDS = 2;
const ROUND_GAP_MS = 500;
const SLOT_MS = 400;
/** The outage, in the notifier's scaled time: ten minutes at 60 times the speed. */
const TIME_SCALE = 60;
const OUTAGE_MS = (10 * 60_000) / TIME_SCALE;
const SOL = 1_000_000_000;
const TARGET_P99_MS = 250;

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** A base58 address for wallet `i`: 32 bytes drawn from a seed of its own (deterministic). */
function walletAddress(i: number): string {
  const rng = new Rng(1_000 + i);
  return encodeBase58(Uint8Array.from({ length: 32 }, () => Math.floor(rng.next() * 256)));
}
const ADDRESSES = Array.from({ length: WALLETS }, (_, i) => walletAddress(i));

/** Inserts the rules straight into the notifier's schema (as its commands would store them), every one with the receiver as target. */
async function insertRules(pool: Pool, url: string, rng: Rng): Promise<void> {
  const rows: { id: string; kind: string; params: unknown }[] = [];
  let n = 0;
  const id = () => `alr_bench${String(++n).padStart(17, '0')}`;
  for (let i = 0; i < RULES.wallet; i++) {
    const watched = new Set<string>();
    const count = 1 + Math.floor(rng.next() * 5);
    while (watched.size < count) watched.add(ADDRESSES[Math.floor(rng.next() * WALLETS)]!);
    rows.push({ id: id(), kind: 'wallet', params: { addresses: [...watched], on: ['win', 'top_miner', 'motherlode'] } });
  }
  // Bars above any pool the bench publishes: evaluated on every snapshot, never fired.
  for (let i = 0; i < RULES.motherlode; i++) rows.push({ id: id(), kind: 'motherlode', params: { minOre: 10_000 + i } });
  // 50 (stake, price) pairs; all but the one the bench times ask for more than any square gives.
  for (let i = 0; i < RULES.square_ev; i++) {
    const timed = i === 0;
    rows.push({
      id: id(),
      kind: 'square_ev',
      params: { minEvPerSol: timed ? 0.5 : 900, stakeLamports: SOL / 100 * (1 + (i % 50)), orePriceLamports: 2 * SOL, fromSlotsBeforeEnd: 50, squares: null },
    });
  }
  for (let i = 0; i < RULES.event; i++) rows.push({ id: id(), kind: 'event', params: { eventKind: 'big_round', filters: [] } });
  const createdAt = new Date(Date.now() - 60_000);
  for (let from = 0; from < rows.length; from += 2000) {
    const part = rows.slice(from, from + 2000);
    await pool.query(
      `INSERT INTO alerts.rules (id, owner, kind, params, target_url, target_format, created_at, updated_at)
       SELECT i, 'sub_bench', k, p, $4, 'standard', $5, $5 FROM unnest($1::text[], $2::text[], $3::jsonb[]) AS u(i, k, p)`,
      [part.map((r) => r.id), part.map((r) => r.kind), part.map((r) => JSON.stringify(r.params)), url, createdAt],
    );
    await pool.query(`INSERT INTO alerts.rule_secrets (rule_id, secret) SELECT unnest($1::text[]), $2`, [part.map((r) => r.id), `whsec_${'A'.repeat(43)}=`]);
  }
}

function settledRound(id: number, winningSquare: number): Round {
  return {
    id,
    deployed: Array(25).fill(SOL),
    count: Array(25).fill(16),
    winningSquare,
    totalDeployed: 25 * SOL,
    totalWinnings: 25 * SOL,
    totalVaulted: 0,
    totalMiners: MINERS_A_ROUND,
    motherlode: 0,
    topMinerReward: ORE_BASE_UNITS,
    slotHash: 'ab'.repeat(32),
    settledAt: new Date().toISOString(),
    payoutRule: 'returns',
    oreReward: ORE_BASE_UNITS,
    topMiner: null,
    split: true,
    productionCost: 2 * SOL,
    source: 'account',
    motherlodePool: 500 * ORE_BASE_UNITS,
  };
}

function minerRow(address: string, roundId: number, square: number, winningSquare: number, settledAt: string): MinerRound {
  const won = square === winningSquare;
  return {
    roundId,
    address,
    settledAt,
    payoutRule: 'returns',
    squares: [square],
    amounts: [SOL / 10],
    deployed: SOL / 10,
    deploys: 1,
    signer: address,
    automated: false,
    automationStrategy: null,
    slotsLeft: 20,
    slotsLeftLast: 20,
    solBack: SOL / 10 - SOL / 1000,
    oreTopMiner: 0,
    oreSplit: won ? ORE_BASE_UNITS / 16 : 0,
    oreMotherlode: 0,
    topMiner: false,
    heldWinningSquare: won,
    adminFee: SOL / 1000,
    protocolFee: 0,
    networkFee: 5000,
    priorityFee: 0,
    executorFee: 0,
    checkpointDeposit: 0,
    net: -SOL / 1000 - 5000,
  };
}

/** A live snapshot `slotsLeft` slots before the end; square 0 cheap enough at the end for the timed square_ev rule. */
function snapshot(roundId: number, slotsLeft: number, cheap: boolean): LiveSnapshot {
  const deployed = Array.from({ length: 25 }, (_, s) => (s === 0 && cheap ? SOL / 100 : 50 * SOL));
  return {
    roundId,
    status: 'active',
    deployed,
    count: deployed.map(() => 10),
    totalDeployed: deployed.reduce((a, b) => a + b, 0),
    totalMiners: 300,
    secondsLeft: slotsLeft * 0.4,
    slot: 10_000 - slotsLeft,
    startSlot: 9_850,
    endSlot: 10_000,
    prevRound: null,
    updatedAt: new Date().toISOString(),
    game: {
      payoutRule: 'returns',
      oreReward: ORE_BASE_UNITS,
      motherlodePool: 500 * ORE_BASE_UNITS,
      productionCost: 2 * SOL,
      splitSquares: null,
      evStakeLamports: SOL / 10,
      evOrePriceLamports: 2 * SOL,
      evPerSol: deployed.map(() => 0),
    },
  };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/**
 * Alerts: 10,000 active rules (7,000 wallet, 1,000 each of motherlode, square_ev and event)
 * on one notifier replica, every one with a webhook target (a local receiver). (1) From a
 * round's settlement (its round and miner rows published as the indexer does) to each
 * webhook received, over 60 rounds of 400 miners, after two warm-up rounds; (2) a square_ev
 * rule: from the live snapshot that meets it to its webhook, beside the other rules
 * evaluated on every snapshot; (3) the receiver down for ten minutes of the notifier's
 * schedule (run 60 times faster) while rounds keep settling, then back: every firing
 * received, none accepted twice under one webhook-id.
 */
const bench: Bench = async () => {
  const db = await createTestDatabase();
  const ns = testNamespace();
  const names = natsNames(ns.natsPrefix);
  const receiver = await startWebhookReceiver();
  // Each receipt's body, read once.
  const bodies = new WeakMap<WebhookReceipt, { readonly type: string; readonly roundId: number | null }>();
  const body = (r: WebhookReceipt) => {
    let b = bodies.get(r);
    if (b === undefined) bodies.set(r, (b = JSON.parse(r.raw) as { type: string; roundId: number | null }));
    return b;
  };
  let notifier: ServiceProcess | null = null;
  let nc: NatsConnection | null = null;
  const pool = createPool(db.url);
  try {
    const started = await startNotifierFor(receiver, { databaseUrl: db.url, natsPrefix: ns.natsPrefix }, { NOTIFIER_RULES_REFRESH_MS: '200', NOTIFIER_TIME_SCALE: String(TIME_SCALE) });
    notifier = started.process;
    const opsPort = started.opsPort;
    const rng = new Rng(11);
    await insertRules(pool, receiver.url, rng);
    const enabled = async () => Number((await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text()).match(/^notifier_rules_enabled (\d+)/m)?.[1] ?? 0);
    const total = RULES.wallet + RULES.motherlode + RULES.square_ev + RULES.event;
    for (let i = 0; i < 200 && (await enabled()) < total; i++) await new Promise((r) => setTimeout(r, 100));
    nc = await connectBus({ servers: ns.natsUrl, name: 'bench-alerts', logger: createLogger({ service: 'bench', silent: true }) });

    // (1) Settlement to webhook: each round's round and miner rows, as the indexer publishes them.
    const sentAt = new Map<number, number>();
    const settle = (roundId: number): void => {
      const winning = Math.floor(rng.next() * 25);
      const round = settledRound(roundId, winning);
      const miners = Array.from({ length: MINERS_A_ROUND }, () => minerRow(ADDRESSES[Math.floor(rng.next() * WALLETS)]!, roundId, Math.floor(rng.next() * 25), winning, round.settledAt));
      const unique = [...new Map(miners.map((m) => [m.address, m])).values()];
      sentAt.set(roundId, performance.now());
      nc!.publish(names.subjects.roundSettled, encodeEvent('roundSettled', round));
      nc!.publish(names.subjects.minersSettled, encodeEvent('minersSettled', { roundId, count: unique.length, miners: unique }));
    };
    const lastMeasured = WARM_UP_ROUNDS + ROUNDS;
    for (let r = 1; r <= lastMeasured; r++) {
      settle(r);
      await new Promise((res) => setTimeout(res, ROUND_GAP_MS));
    }
    const firedIn = async (from: number, to: number) =>
      Number((await pool.query("SELECT count(*)::int AS n FROM alerts.firings WHERE (payload->>'roundId')::int BETWEEN $1 AND $2", [from, to])).rows[0].n);
    const measured = (r: WebhookReceipt) => body(r).roundId !== null && body(r).roundId! > WARM_UP_ROUNDS && body(r).roundId! <= lastMeasured;
    const settledFirings = await firedIn(WARM_UP_ROUNDS + 1, lastMeasured);
    await waitFor(() => receiver.receipts.filter(measured).length >= settledFirings, 30_000);
    const latencies = receiver.receipts
      .filter((r) => body(r).type === 'alert.wallet' && measured(r))
      .map((r) => r.at - sentAt.get(body(r).roundId!)!)
      .sort((a, b) => a - b);

    // (2) square_ev: slots counting down; the snapshot 40 slots before the end makes square 0 cheap enough.
    const evRound = 10_000;
    let metAt = 0;
    for (let left = 60; left >= 30; left--) {
      const cheap = left <= 40;
      if (cheap && metAt === 0) metAt = performance.now();
      nc.publish(names.subjects.liveUpdated, encodeEvent('liveUpdated', snapshot(evRound, left, cheap)));
      await new Promise((res) => setTimeout(res, SLOT_MS));
    }
    const evReceipt = receiver.receipts.find((r) => body(r).type === 'alert.square_ev' && body(r).roundId === evRound);
    const evMs = evReceipt === undefined ? Number.POSITIVE_INFINITY : evReceipt.at - metAt;

    // (3) The receiver down for ten (scaled) minutes while rounds keep settling, then back.
    const outageFrom = lastMeasured + 1;
    receiver.status = 503;
    const downUntil = Date.now() + OUTAGE_MS;
    let r = outageFrom;
    while (Date.now() < downUntil) {
      settle(r++);
      await new Promise((res) => setTimeout(res, ROUND_GAP_MS));
    }
    receiver.status = 204;
    const outageTo = r - 1;
    const outageFirings = await firedIn(outageFrom, outageTo);
    const inOutage = (x: WebhookReceipt) => body(x).roundId !== null && body(x).roundId! >= outageFrom && body(x).roundId! <= outageTo;
    const acceptedIds = () => receiver.receipts.filter((x) => x.status === 204 && inOutage(x)).map((x) => x.id);
    // The retries that come due after the outage (2 min, then 10 min of the schedule: 2 s and 10 s here).
    await waitFor(() => new Set(acceptedIds()).size >= outageFirings, 60_000);
    const accepted = acceptedIds();
    const lost = outageFirings - new Set(accepted).size;
    const twice = accepted.length - new Set(accepted).size;
    const refusedDuring = receiver.receipts.filter((x) => x.status !== 204).length;

    return [
      {
        key: 'alerts.settlementToWebhookP99',
        label: `alerts: a round's settlement to each webhook received, p99 (${total.toLocaleString('en')} active rules, one replica; ${latencies.length} webhooks over ${ROUNDS} rounds, after ${WARM_UP_ROUNDS} warm-up rounds)`,
        value: Math.round(percentile(latencies, 0.99)),
        unit: 'ms',
        target: `< ${TARGET_P99_MS}`,
        met: latencies.length > 0 && latencies.length >= settledFirings && percentile(latencies, 0.99) < TARGET_P99_MS,
      },
      { key: 'alerts.settlementToWebhookP50', label: 'alerts: the same, median', value: Math.round(percentile(latencies, 0.5)), unit: 'ms' },
      {
        key: 'alerts.squareEvMs',
        label: 'alerts: a square_ev rule, from the snapshot that meets it to its webhook (one slot = 400 ms)',
        value: Math.round(evMs),
        unit: 'ms',
        target: `< ${SLOT_MS}`,
        met: evMs < SLOT_MS,
      },
      {
        key: 'alerts.outageLost',
        label: `alerts: firings lost to a receiver down for ten minutes (at ${TIME_SCALE}x: ${OUTAGE_MS / 1000} s; ${outageFirings} firings, ${refusedDuring} attempts refused)`,
        value: lost,
        unit: 'firings',
        target: '0',
        met: lost === 0 && outageFirings > 0,
      },
      { key: 'alerts.outageTwice', label: 'alerts: firings accepted twice under one webhook-id after the outage', value: twice, unit: 'firings', target: '0', met: twice === 0 },
    ];
  } finally {
    await nc?.drain();
    await notifier?.stop();
    await pool.end();
    await receiver.stop();
    await db.drop();
  }
};

export default bench;
