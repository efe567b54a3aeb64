import { createPool, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { createLogger, type Logger } from '@gridlab/logger';
import { RoundRepository } from '@gridlab/rounds-store';
import { createTestDatabase, runCli, testNamespace, type TestDatabase } from '@gridlab/testing';
import { Registry } from 'prom-client';
import { startIndexer, type Indexer, type IndexerSettings } from '../src/indexer';
import { waitFor } from './harness';

// The same seed and settings every time: a chain started again from genesis replays the
// same round ids and contents; only its genesis hash (salted at genesis) tells it apart.
const DEVNET = { wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds: 30, seed: 21 } as const;

let db: TestDatabase;
let pool: Pool;
let repo: RoundRepository;
const ns = testNamespace();
const devnets: Devnet[] = [];
const indexers: Indexer[] = [];

async function devnet(rpcPort = 0): Promise<Devnet> {
  const d = await startDevnet({ ...DEVNET, rpcPort });
  devnets.push(d);
  return d;
}

async function indexer(d: Devnet, logger: Logger, databaseUrl = db.url): Promise<Indexer> {
  const settings: IndexerSettings = {
    databaseUrl,
    natsUrl: ns.natsUrl,
    natsPrefix: ns.natsPrefix,
    rpcUrl: d.rpcUrl,
    wsUrl: d.wsUrl,
    programId: d.programId,
    pollIntervalMs: 200,
    slotSeconds: 0.01,
    leaderRetryMs: 100,
    chainCheckMs: 200,
  };
  const i = await startIndexer(settings, { logger, metrics: new Registry() });
  indexers.push(i);
  return i;
}

function quietLogger(): { logger: Logger; errors: string[] } {
  const logger = createLogger({ service: 'indexer-test', silent: true });
  const errors: string[] = [];
  const original = logger.error.bind(logger);
  logger.error = ((message: unknown, ...rest: unknown[]) => {
    errors.push(String(message));
    return (original as (...a: unknown[]) => Logger)(message, ...rest);
  }) as Logger['error'];
  return { logger, errors };
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url);
  repo = new RoundRepository(pool);
});
afterAll(async () => {
  await Promise.all(indexers.map((i) => i.stop().catch(() => undefined)));
  await Promise.all(devnets.map((d) => d.stop().catch(() => undefined)));
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('chain identity', () => {
  it('records the genesis hash, then refuses a chain with another one (log, /readyz) and stores nothing of it', async () => {
    const a = await devnet();
    const first = quietLogger();
    const ia = await indexer(a, first.logger);
    await waitFor(async () => (await repo.count()) >= 33, 30_000, 'rounds of chain A stored');
    await expect(ia.checks['chain']!()).resolves.toMatchObject({ genesisHash: a.genesisHash });
    const { rows } = await pool.query<{ genesis_hash: string }>('SELECT genesis_hash FROM indexer.chain');
    expect(rows).toEqual([{ genesis_hash: a.genesisHash }]);
    await ia.stop();
    await a.stop();
    const storedA = await repo.count();
    const latestA = await repo.latestId();

    // The same game started again from genesis: another chain.
    const b = await devnet();
    expect(b.genesisHash).not.toBe(a.genesisHash);
    const second = quietLogger();
    const ib = await indexer(b, second.logger);
    await waitFor(async () => ib.status().role === 'refused', 10_000, 'refusal');
    await expect(ib.checks['chain']!()).rejects.toThrow(new RegExp(`refusing to index: .*${b.genesisHash}.*${a.genesisHash}.*make reset`));
    expect(second.errors.some((m) => m.includes('refusing to index') && m.includes(b.genesisHash) && m.includes('gridlab admin chain'))).toBe(true);
    // Chain B runs past the stored rounds; none of its rounds is stored.
    await b.waitForSettled(latestA! + 3, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(await repo.count()).toBe(storedA);
    expect(await repo.latestId()).toBe(latestA);
    expect(ib.status().role).toBe('refused');

    // The operator command shows both identities and how to start over.
    const cli = await runCli(['admin', 'chain', '--rpc', b.rpcUrl], { ...process.env, DATABASE_URL: db.url });
    expect(cli.code).toBe(0);
    const report = JSON.parse(cli.stdout) as { recorded: { genesisHash: string }; current: { genesisHash: string }; matches: boolean; latestRoundId: number; startOver: string[] };
    expect(report).toMatchObject({ recorded: { genesisHash: a.genesisHash }, current: { genesisHash: b.genesisHash }, matches: false, latestRoundId: latestA });
    expect(report.startOver.join(' ')).toContain('make reset');
    await ib.stop();
  });

  it('stops leading when the chain under a running indexer changes (a devnet restarted from genesis on the same port)', async () => {
    const own = await createTestDatabase();
    const ownPool = createPool(own.url);
    const ownRepo = new RoundRepository(ownPool);
    const a = await devnet();
    const { logger, errors } = quietLogger();
    const ia = await indexer(a, logger, own.url);
    await waitFor(async () => ia.status().role === 'leader' && (await ownRepo.count().catch(() => 0)) >= 30, 30_000, 'leading on chain A');
    const port = Number(new URL(a.rpcUrl).port);
    await a.stop();
    const b = await devnet(port);
    await waitFor(async () => ia.status().role === 'refused', 15_000, 'refusal after the chain changed');
    expect(errors.some((m) => m.includes('refusing to index'))).toBe(true);
    const stored = await ownRepo.count();
    await b.waitForSettled(b.currentRoundId() + 2, 30_000);
    expect(await ownRepo.count()).toBe(stored);
    await ia.stop();
    await ownPool.end();
    await own.drop();
  });

  it('adopts rounds stored before identities only when the chain agrees with them', async () => {
    // Rounds of chain A are stored but no identity is recorded (a database from before identities).
    await pool.query('TRUNCATE indexer.chain');
    const latest = (await repo.latestId())!;
    const b = await devnet();
    // Held still: the same seed replays chain A's rounds, so a chain B let run past the
    // stored rounds would be adopted, and the refusal raced the indexer's start.
    b.pause();
    expect(b.currentRoundId()).toBeLessThanOrEqual(latest);
    const { logger } = quietLogger();
    const ib = await indexer(b, logger);
    await waitFor(async () => ib.status().role === 'refused', 10_000, 'refusal of a chain behind the stored rounds');
    await expect(ib.checks['chain']!()).rejects.toThrow(/predate chain identities .* reach round \d+ but the chain's board is at round/);
    expect((await pool.query('SELECT 1 FROM indexer.chain')).rowCount).toBe(0);
  });
});
