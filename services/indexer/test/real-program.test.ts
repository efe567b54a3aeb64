/**
 * The indexer against a devnet whose live rounds the ORE program's own mainnet executable
 * plays (the v3 era's real-program mode): every round the program settled is stored as
 * the Round account it wrote says, read here at SPEC 3's offsets (neither libs/chain's
 * codec nor the devnet's reader), and the port's history before it as the devnet settled it.
 */
import { OrePdas } from '@gridlab/chain';
import { createPool, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import { RoundRepository } from '@gridlab/rounds-store';
import { comparableRounds, createTestDatabase, roundV3AtOffsets, testNamespace, type TestDatabase, type TestNamespace } from '@gridlab/testing';
import { Registry } from 'prom-client';
import { startIndexer, type Indexer } from '../src/indexer';
import { indexerSettings, waitFor } from './harness';

const HISTORY = 5;
const LIVE = 4;
const LAST = HISTORY + LIVE;
const SLOT_MS = 3;
const ORE = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';

async function roundAccount(rpcUrl: string, address: string): Promise<{ owner: string; data: Buffer }> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [address, { encoding: 'base64' }] }),
  });
  const { result } = (await res.json()) as { result: { value: { owner: string; data: [string, string] } } };
  return { owner: result.value.owner, data: Buffer.from(result.value.data[0], 'base64') };
}

let devnet: Devnet;
let db: TestDatabase;
let ns: TestNamespace;
let pool: Pool;
let indexer: Indexer;

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: SLOT_MS, historyRounds: HISTORY, seed: 41, eras: 'v3', deploysPerRound: 6 });
  db = await createTestDatabase();
  ns = testNamespace();
  pool = createPool(db.url);
  indexer = await startIndexer(indexerSettings(devnet, db, ns, SLOT_MS / 1000), { logger: createLogger({ service: 'indexer-real-program-test', silent: true }), metrics: new Registry() });
});

afterAll(async () => {
  await indexer.stop();
  await devnet.stop();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('the indexer against live rounds settled by the real ORE program', () => {
  it('stores each round as the account the program wrote, and the history as the devnet played it', async () => {
    expect(devnet.liveProgram).toBe('2026-04');
    const repo = new RoundRepository(pool);
    await devnet.waitForSettled(LAST, 60_000);
    const ids = Array.from({ length: LAST }, (_, i) => i + 1);
    await waitFor(async () => (await repo.storedIds(ids)).size === LAST, 20_000, `rounds 1..${LAST} stored`);
    devnet.pause();
    const stored = await repo.getRounds({ fromId: 1, toId: LAST });
    expect(stored.map((r) => r.id)).toEqual(ids);

    const pdas = new OrePdas(devnet.programId);
    for (const round of stored.filter((r) => r.id > HISTORY)) {
      const account = await roundAccount(devnet.rpcUrl, pdas.round(round.id).toBase58());
      expect(account.owner).toBe(ORE);
      expect(account.data.length).toBe(568);
      expect(roundV3AtOffsets(account.data)).toMatchObject({
        id: round.id,
        deployed: round.deployed,
        slotHash: round.slotHash,
        count: round.count,
        motherlode: round.motherlode,
        topMinerReward: round.topMinerReward,
        totalDeployed: round.totalDeployed,
        totalMiners: round.totalMiners,
        totalVaulted: round.totalVaulted,
        totalWinnings: round.totalWinnings,
        winningSquare: round.winningSquare,
      });
      // v3 rounds: the parimutuel rule, no ORE fields.
      expect({ payoutRule: round.payoutRule, oreReward: round.oreReward, topMiner: round.topMiner, split: round.split, source: round.source }).toEqual({
        payoutRule: 'parimutuel',
        oreReward: null,
        topMiner: null,
        split: null,
        source: 'account',
      });
      expect(round.totalDeployed).toBeGreaterThan(0);
    }
    // The history is the port's; the live rounds are the program's: the indexer stores both as the devnet reports them.
    expect(comparableRounds(stored)).toEqual(comparableRounds(devnet.settledRounds().filter((r) => r.id <= LAST)));
  });
});
