import { OrePdas } from '@gridlab/chain';
import { natsNames, type NatsNames } from '@gridlab/contracts';
import { createPool, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import { RoundRepository } from '@gridlab/rounds-store';
import { comparableRounds, createTestDatabase, testNamespace, type TestDatabase, type TestNamespace } from '@gridlab/testing';
import { Registry } from 'prom-client';
import { startIndexer, type Indexer, type IndexerSettings } from '../src/indexer';

/** A devnet, a database and a NATS namespace for one test file, plus indexer factories. */
export interface Harness {
  readonly devnet: Devnet;
  readonly db: TestDatabase;
  readonly ns: TestNamespace;
  readonly names: NatsNames;
  readonly pool: Pool;
  readonly repo: RoundRepository;
  readonly pdas: OrePdas;
  readonly settings: IndexerSettings;
  startIndexer(overrides?: Partial<IndexerSettings>): Promise<{ indexer: Indexer; metrics: Registry }>;
  /** Stops every indexer started so far (after each test: a failed test's leader must not starve the next). */
  stopIndexers(): Promise<void>;
  close(): Promise<void>;
}

/** An indexer's settings for a test: its own database and namespace, the devnet's RPC, fast polling and elections. */
export function indexerSettings(devnet: Devnet, db: TestDatabase, ns: TestNamespace, slotSeconds: number): IndexerSettings {
  return {
    databaseUrl: db.url,
    natsUrl: ns.natsUrl,
    natsPrefix: ns.natsPrefix,
    rpcUrl: devnet.rpcUrl,
    wsUrl: devnet.wsUrl,
    programId: devnet.programId,
    pollIntervalMs: 200,
    slotSeconds,
    leaderRetryMs: 100,
    // Off unless a test is about it: the devnet runs in the test's process, at rounds a hundred
    // times mainnet's pace, and reading every deploy's transaction would load the process the
    // timing of the other tests depends on.
    minerLedger: false,
  };
}

export async function harness(historyRounds = 30): Promise<Harness> {
  const devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds, seed: 21 });
  const db = await createTestDatabase();
  const ns = testNamespace();
  const pool = createPool(db.url);
  const settings = indexerSettings(devnet, db, ns, 0.01);
  const running: Indexer[] = [];
  return {
    devnet,
    db,
    ns,
    names: natsNames(ns.natsPrefix),
    pool,
    repo: new RoundRepository(pool),
    pdas: new OrePdas(devnet.programId),
    settings,
    startIndexer: async (overrides = {}) => {
      const metrics = new Registry();
      const indexer = await startIndexer({ ...settings, ...overrides }, { logger: createLogger({ service: 'indexer-test', silent: true }), metrics });
      running.push(indexer);
      return { indexer, metrics };
    },
    stopIndexers: async () => {
      await Promise.all(running.splice(0).map((i) => i.stop().catch(() => undefined)));
    },
    close: async () => {
      await Promise.all(running.splice(0).map((i) => i.stop().catch(() => undefined)));
      await devnet.stop();
      await pool.end();
      await db.drop();
      await ns.cleanup();
    },
  };
}

/** The fields both sides know (see comparableRounds). */
export const comparable = comparableRounds;

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Waits until every round the devnet settled up to `id` is stored. */
export async function waitForStored(h: Harness, id: number): Promise<void> {
  await h.devnet.waitForSettled(id, 20_000);
  await waitFor(async () => (await h.repo.storedIds(Array.from({ length: id }, (_, i) => i + 1))).size === id, 20_000, `rounds 1..${id} stored`);
}

export async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l));
  return Number(value?.value ?? 0);
}
