/**
 * History from transactions against a devnet that behaves like mainnet: rounds close
 * after their expiry, so the indexer must rebuild them from the program's events; the
 * provider refuses requests over its budgets and drops sockets.
 */
import { OrePdas } from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
import { createPool, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import { HistoryStore, RoundRepository } from '@gridlab/rounds-store';
import { createTestDatabase, provableRound, testNamespace, type TestDatabase, type TestNamespace } from '@gridlab/testing';
import { Registry } from 'prom-client';
import { parseRpcLimits } from '@gridlab/chain';
import { startIndexer, type Indexer, type IndexerSettings } from '../src/indexer';
import { indexerSettings } from './harness';

const SEED = 77;
const HISTORY = 240;
/** Fast slots; rounds of 8 + 2 slots with about 30 deploys each (mainnet's 400 make the same transactions, only more). */
const CHAIN = { slotMs: 20, roundSlots: 8, intermissionSlots: 2, historyRounds: HISTORY, seed: SEED, rpcPort: 0, wsPort: 0, deploysPerRound: 30 } as const;

interface Run {
  readonly devnet: Devnet;
  readonly db: TestDatabase;
  readonly ns: TestNamespace;
  readonly pool: Pool;
  readonly repo: RoundRepository;
  readonly settings: IndexerSettings;
  indexer: Indexer | null;
}

const runs: Run[] = [];

async function run(devnet: Devnet, overrides: Partial<IndexerSettings> = {}): Promise<Run> {
  const db = await createTestDatabase();
  const ns = testNamespace();
  const pool = createPool(db.url);
  // With the ledger, as an indexer runs by default: the fill reads every deploy and writes each round's miners too.
  const settings: IndexerSettings = { ...indexerSettings(devnet, db, ns, CHAIN.slotMs / 1000), history: { fromRound: 1, recheckMs: 500 }, minerLedger: true, ...overrides };
  const r: Run = { devnet, db, ns, pool, repo: new RoundRepository(pool), settings, indexer: null };
  runs.push(r);
  return r;
}

async function start(r: Run): Promise<void> {
  r.indexer = await startIndexer(r.settings, { logger: createLogger({ service: 'indexer-history-test', silent: true }), metrics: new Registry() });
}

async function stop(r: Run): Promise<void> {
  await r.indexer?.stop();
  r.indexer = null;
}

afterAll(async () => {
  for (const r of runs) {
    await stop(r).catch(() => undefined);
    await r.devnet.stop().catch(() => undefined);
    await r.pool.end();
    await r.db.drop();
    await r.ns.cleanup();
  }
});

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Every round 1..upTo stored. */
async function storedThrough(r: Run, upTo: number): Promise<Round[]> {
  await waitFor(`rounds 1..${upTo} stored`, async () => (await r.repo.getRounds({ fromId: 1, toId: upTo, limit: upTo })).length === upTo);
  return r.repo.getRounds({ fromId: 1, toId: upTo, limit: upTo });
}

/**
 * What the chain gives back for a round rebuilt from its transactions (OpenAPI:
 * Round.source): neither the production cost nor the motherlode pool (known only to a
 * reader that watched the round live).
 */
function recoverable(round: Round): Omit<Round, 'settledAt' | 'productionCost' | 'source' | 'motherlodePool'> {
  const { settledAt: _at, productionCost: _cost, source: _source, motherlodePool: _pool, ...rest } = round;
  return rest;
}

/**
 * The chain's own record of each stored round, as a reader of where it was read can prove
 * it: whole from its account, and from its transactions whole or partly known (provableRound).
 */
function provable(devnet: Devnet, stored: readonly Round[]): ReturnType<typeof recoverable>[] {
  const truth = new Map(devnet.settledRounds().map((t) => [t.id, t]));
  return stored.map((s) => {
    const t = truth.get(s.id)!;
    return recoverable(s.source === 'account' ? t : provableRound(t, devnet.roundDeploys(s.id)));
  });
}

/**
 * Watches the HTTP requests this process sends to `rpcUrl` (the indexer runs in it), at
 * the moment each leaves: per JSON-RPC method, one send time per call (a batch item is a call).
 */
function recordRpcSends(rpcUrl: string): { byMethod: Map<string, number[]>; restore: () => void } {
  const byMethod = new Map<string, number[]>();
  const realFetch = globalThis.fetch;
  const spy = jest.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url === rpcUrl && typeof init?.body === 'string') {
      const at = performance.now();
      const body = JSON.parse(init.body) as { method: string } | { method: string }[];
      for (const call of Array.isArray(body) ? body : [body]) {
        let times = byMethod.get(call.method);
        if (times === undefined) byMethod.set(call.method, (times = []));
        times.push(at);
      }
    }
    return realFetch(input, init);
  });
  return { byMethod, restore: () => spy.mockRestore() };
}

/** The most of `times` within any half-open span of `windowMs` (a span opening at one of them holds the most). */
function mostWithin(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

describe('history from transactions', () => {
  it('stores every round, field by field as a chain where no round closed gives them, when most history closed before the indexer started', async () => {
    // The same seed: the same chain. One closes rounds 300 slots after they end (most of the
    // history exists only as transactions at genesis), the other never closes any.
    const closing = await run(await startDevnet({ ...CHAIN, roundExpirySlots: 300 }));
    const open = await run(await startDevnet({ ...CHAIN, roundExpirySlots: 1_000_000_000 }));
    await Promise.all([start(closing), start(open)]);
    const upTo = HISTORY + 10;
    await Promise.all([closing.devnet.waitForSettled(upTo, 60_000), open.devnet.waitForSettled(upTo, 60_000)]);
    const [rebuilt, read] = await Promise.all([storedThrough(closing, upTo), storedThrough(open, upTo)]);
    // Every round of the open chain read from its account, equal to the chain's own record.
    expect(read.every((r) => r.source === 'account')).toBe(true);
    expect(read.map(recoverable)).toEqual(closing.devnet.settledRounds().filter((r) => r.id <= upTo).map(recoverable));
    // Most of the closing chain's history came from transactions: each round as its transactions prove it,
    // partly known where automated deploys before the program logged their squares took some.
    const fromTransactions = rebuilt.filter((r) => r.source === 'transactions' || r.source === 'transactions_partial');
    expect(fromTransactions.length).toBeGreaterThan(HISTORY / 2);
    expect(fromTransactions.every((r) => r.productionCost === null)).toBe(true);
    expect(rebuilt.filter((r) => r.source === 'transactions_partial').length).toBeGreaterThan(0);
    expect(rebuilt.map(recoverable)).toEqual(provable(closing.devnet, rebuilt));
    // Nothing refused on the way.
    expect((await new HistoryStore(closing.pool).unrecoverable()).byReason).toEqual({});
    await Promise.all([stop(closing), stop(open)]);
  });

  it('catches up by itself after being away longer than rounds live', async () => {
    const r = await run(await startDevnet({ ...CHAIN, historyRounds: 20, roundExpirySlots: 40 }));
    await start(r);
    await storedThrough(r, 25);
    await stop(r);
    // Away for ~60 rounds: every one of them is closed by the time the indexer is back.
    const back = r.devnet.currentRoundId() + 60;
    await r.devnet.waitForSettled(back, 60_000);
    await start(r);
    const upTo = back + 5;
    await r.devnet.waitForSettled(upTo, 60_000);
    const stored = await storedThrough(r, upTo);
    expect(stored.map(recoverable)).toEqual(provable(r.devnet, stored));
    expect(stored.filter((x) => x.source !== 'account').length).toBeGreaterThanOrEqual(50);
    await stop(r);
  });

  it('stays within the provider\'s budgets and loses nothing while its sockets are cut', async () => {
    const limits = 'default=20/1s,getSignaturesForAddress=15/1s,getTransaction=300/1s,getProgramAccounts=3/1s';
    // The same budgets, read by hand: calls per any second, per method.
    const WINDOW_MS = 1000;
    const budgetOf = (method: string): number => ({ getSignaturesForAddress: 15, getTransaction: 300, getProgramAccounts: 3 })[method] ?? 20;
    const devnet = await startDevnet({ ...CHAIN, historyRounds: 80, roundExpirySlots: 200, rpcLimits: limits, wsIdleS: 1 });
    // No ping within the socket's idle time: the provider cuts it, over and over.
    // The devnet shares this process: a stall of it (a loaded machine) delays requests on their way, so the
    // client's margin for the time a request takes to arrive is a second here rather than a provider's 250 ms.
    const r = await run(devnet, { rpc: { limits: parseRpcLimits(limits), batchMax: 100, concurrency: 4, limitMarginMs: 1000 }, wsPingMs: 60_000 });
    const sent = recordRpcSends(devnet.rpcUrl);
    const cuts = setInterval(() => devnet.dropWebSockets(), 700);
    try {
      await start(r);
      const upTo = 100;
      await devnet.waitForSettled(upTo, 60_000);
      const stored = await storedThrough(r, upTo);
      expect(stored.map(recoverable)).toEqual(provable(devnet, stored));
      expect(new Set(stored.map((x) => x.id)).size).toBe(stored.length);
    } finally {
      clearInterval(cuts);
      await stop(r);
      sent.restore();
    }
    // What the client sent, timed as it left: no window of a budget's length ever holds
    // more calls of a method than its budget. A failure names the method and the count.
    for (const [method, times] of sent.byMethod) {
      expect({ method, overBudget: Math.max(0, mostWithin(times, WINDOW_MS) - budgetOf(method)) }).toEqual({ method, overBudget: 0 });
    }
    // The check saw the traffic that matters, and the history made the client use its budget.
    const history = sent.byMethod.get('getTransaction') ?? [];
    expect(history.length).toBeGreaterThan(1000);
    expect(mostWithin(history, WINDOW_MS)).toBeGreaterThan(100);
    const stats = devnet.rpcStats();
    for (const [method, s] of Object.entries(stats)) {
      // The devnet counts requests as they arrive, as providers do: when its process stalls
      // (a loaded machine), requests the client spaced over two windows can land in one and
      // be refused. The client waits a refusal out (nothing lost, above); it must stay rare.
      // A failure shows both counts.
      const counts = { method, refused: s.refused, served: s.served };
      expect({ ...counts, rare: s.refused <= Math.max(1, Math.floor(s.served / 100)) }).toEqual({ ...counts, rare: true });
      // Every call the devnet saw, served or refused, was one the client was seen sending.
      expect({ method, seen: s.served + s.refused }).toEqual({ method, seen: sent.byMethod.get(method)?.length ?? 0 });
    }
    expect(stats['getTransaction']!.served).toBeGreaterThan(1000);
  });

  it('keeps every round, equal to the chain\'s, whatever an attacker lands: a u64::MAX deploy listing 200 rounds, an old round as a trailing account, resets whose first var value is another program\'s', async () => {
    // Rounds 1..20 predate the DeployEvent (the mixed eras of 240 rounds); about the oldest 150 are closed at genesis.
    const hostile = [7, 30, 120];
    const devnet = await startDevnet({ ...CHAIN, roundExpirySlots: 1000, hostileResets: hostile });
    devnet.recordOverflowDeploy(Array.from({ length: 200 }, (_, i) => i + 1));
    devnet.recordTrailingRoundDeploy(5, 1_000_000);
    const r = await run(devnet);
    await start(r);
    const stored = await storedThrough(r, 200);
    expect(stored.map(recoverable)).toEqual(provable(devnet, stored));
    // The attacked rounds were read from their transactions, attacks included.
    for (const id of [1, 5, ...hostile]) expect([id, stored[id - 1]!.source]).toEqual([id, expect.stringMatching(/^transactions/)]);
    expect((await new HistoryStore(r.pool).unrecoverable()).byReason).toEqual({});
    await stop(r);
  });

  it('ignores a Log of the ORE program that its board did not sign', async () => {
    const devnet = await startDevnet({ ...CHAIN, historyRounds: 30, roundExpirySlots: 100 });
    const pdas = new OrePdas(devnet.programId);
    // A successful transaction touching round 5 whose ORE Log's only account is another
    // signer, carrying a ResetEvent for round 5 with other totals.
    devnet.recordForgedLog(pdas.round(5).toBase58(), 5);
    const r = await run(devnet);
    await start(r);
    const stored = await storedThrough(r, 30);
    expect(stored.map(recoverable)).toEqual(provable(devnet, stored));
    expect(stored[4]!.source).not.toBe('account');
    await stop(r);
  });
});
