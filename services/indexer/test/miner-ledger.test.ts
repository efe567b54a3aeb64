/**
 * Every wallet's side of every round, indexed from a devnet's transactions: history and
 * live rounds get their miners, each wallet's squares and amounts are what the devnet
 * played for it (its own reading of the program, not libs/chain), the rows add up to the
 * round, and the live round's deploys and the settled rows are published on NATS.
 */
import { connectBus, decodeEvent } from '@gridlab/bus';
import { natsNames, type MinerDeployed, type MinerRound, type Round, type RoundMiners } from '@gridlab/contracts';
import { createPool, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet, type DevnetDeploy } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import { MinerLedgerStore } from '@gridlab/miners-store';
import { RoundRepository } from '@gridlab/rounds-store';
import { createTestDatabase, testNamespace, type TestDatabase, type TestNamespace } from '@gridlab/testing';
import { Registry } from 'prom-client';
import { startIndexer, type Indexer } from '../src/indexer';
import { indexerSettings } from './harness';

const HISTORY = 60;
const CHAIN = { slotMs: 20, roundSlots: 10, intermissionSlots: 3, historyRounds: HISTORY, seed: 9, rpcPort: 0, wsPort: 0, deploysPerRound: 40, roundExpirySlots: 400 } as const;

let devnet: Devnet;
let db: TestDatabase;
let ns: TestNamespace;
let pool: Pool;
let indexer: Indexer | null = null;
const logger = createLogger({ service: 'miner-ledger-test', silent: true });

beforeAll(async () => {
  devnet = await startDevnet(CHAIN);
  db = await createTestDatabase();
  ns = testNamespace();
  pool = createPool(db.url);
});

afterAll(async () => {
  await indexer?.stop();
  await devnet.stop();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The devnet's own record of a round's wallets: squares taken and lamports on each (a square at its first deploy), in first-deploy order. */
function played(deploys: readonly DevnetDeploy[]): Map<string, { squares: number[]; amounts: number[]; automated: boolean; executorFee: number }> {
  const wallets = new Map<string, { stake: number[]; automated: boolean; executorFee: number }>();
  for (const d of deploys) {
    let w = wallets.get(d.authority);
    if (w === undefined) wallets.set(d.authority, (w = { stake: new Array<number>(25).fill(0), automated: false, executorFee: 0 }));
    for (let s = 0; s < 25; s++) if ((d.squares & (1 << s)) !== 0 && w.stake[s] === 0) w.stake[s] = d.amount;
    w.automated ||= d.automated;
    w.executorFee += d.executorFee;
  }
  const out = new Map<string, { squares: number[]; amounts: number[]; automated: boolean; executorFee: number }>();
  for (const [authority, w] of wallets) {
    const squares = w.stake.flatMap((v, s) => (v > 0 ? [s] : []));
    if (squares.length > 0) out.set(authority, { squares, amounts: squares.map((s) => w.stake[s]!), automated: w.automated, executorFee: w.executorFee });
  }
  return out;
}

describe("every miner's ledger, indexed from the chain", () => {
  it('reads the miners of history and live rounds, each wallet as the devnet played it, the rows adding up to the round, and publishes them', async () => {
    const names = natsNames(ns.natsPrefix);
    const bus = await connectBus({ servers: ns.natsUrl, name: 'miner-ledger-test', logger });
    const settled: RoundMiners[] = [];
    const deployed: MinerDeployed[] = [];
    bus.subscribe(names.subjects.minersSettled, { callback: (_e, msg) => void settled.push(decodeEvent('minersSettled', msg.data)) });
    bus.subscribe(names.subjects.minerDeployed, { callback: (_e, msg) => void deployed.push(decodeEvent('minerDeployed', msg.data)) });
    indexer = await startIndexer(
      { ...indexerSettings(devnet, db, ns, CHAIN.slotMs / 1000), history: { fromRound: 1, recheckMs: 500 }, minerLedger: true },
      { logger, metrics: new Registry() },
    );
    const upTo = HISTORY + 15;
    await devnet.waitForSettled(upTo, 90_000);
    const store = new MinerLedgerStore(pool);
    const repo = new RoundRepository(pool);
    await waitFor(`the miners of rounds 1..${upTo}`, async () => {
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int4 AS n FROM indexer.miner_round_sets WHERE round_id BETWEEN 1 AND $1', [upTo]);
      return rows[0]!.n === upTo;
    });
    // The history's rows, written a chunk at a time, are in the rollups once its fill ends: every stored row counts once.
    await waitFor('every stored row in the rollups', async () => {
      const { rows } = await pool.query<{ counted: boolean }>(
        `SELECT (SELECT sum(rounds) FROM indexer.miner_totals) = (SELECT count(*) FROM indexer.miner_rounds_recent)
            AND NOT EXISTS (SELECT 1 FROM indexer.miner_unfolded_rounds) AS counted`,
      );
      return rows[0]!.counted;
    });
    const rounds: Round[] = await repo.getRounds({ fromId: 1, toId: upTo, limit: upTo });
    let checkedWallets = 0;
    let automatedWallets = 0;
    let partly = 0;
    let feesShown = 0;
    for (const round of rounds) {
      const miners = (await store.roundMiners(round.id))!;
      const truth = played(devnet.roundDeployList(round.id)!);
      const staked = miners.miners.filter((m) => m.squares === null || m.squares.length > 0);
      expect(staked.map((m) => m.address).sort()).toEqual([...truth.keys()].sort());
      if (round.source === 'transactions_partial') {
        // Automated deploys that did not show their squares: no wallet's outcome is proven.
        partly++;
        expect(miners.miners.every((m) => m.solBack === null && m.topMiner === null)).toBe(true);
        continue;
      }
      for (const m of staked) {
        const t = truth.get(m.address)!;
        expect({ address: m.address, squares: m.squares, amounts: m.amounts, automated: m.automated }).toEqual({ address: m.address, squares: t.squares, amounts: t.amounts, automated: t.automated });
        // An executor's fee shows in the automation's balance; a manual deploy pays none.
        if (m.executorFee !== null) expect(m.executorFee).toBe(t.automated ? t.executorFee : 0);
        if (t.automated && (m.executorFee ?? 0) > 0) feesShown++;
        checkedWallets++;
        if (t.automated) automatedWallets++;
      }
      // The rows add up to the round: stakes and deployers per square, the total.
      for (let s = 0; s < 25; s++) {
        const on = staked.filter((m) => m.squares!.includes(s));
        expect(on.reduce((a, m) => a + m.amounts![m.squares!.indexOf(s)]!, 0)).toBe(round.deployed[s]);
        expect(on.length).toBe(round.count[s]);
      }
      // What came back and what the fees took is every stake (returns), and the winners' share of the pot (parimutuel).
      const sum = (f: (m: MinerRound) => number) => staked.reduce((a, m) => a + f(m), 0);
      if (round.winningSquare === null) {
        expect(sum((m) => m.solBack!)).toBe(round.totalDeployed);
      } else if (round.payoutRule === 'returns') {
        expect(sum((m) => m.solBack! + m.adminFee! + m.protocolFee!)).toBe(round.totalDeployed);
        expect(sum((m) => m.solBack!)).toBeLessThanOrEqual(round.totalWinnings);
        expect(sum((m) => m.solBack!)).toBeGreaterThan(round.totalWinnings - 25 * staked.length);
      } else {
        const w = round.winningSquare;
        const pot = round.deployed[w]! + round.totalWinnings;
        expect(sum((m) => m.solBack!)).toBeLessThanOrEqual(pot);
        expect(sum((m) => m.solBack!)).toBeGreaterThan(pot - sum((m) => (m.squares!.includes(w) ? m.adminFee! + 2 : 0)) - 1);
      }
      // One top miner when the reward was not split and somebody was on the winning square.
      const onWinner = round.winningSquare === null ? 0 : round.deployed[round.winningSquare]!;
      const tops = staked.filter((m) => m.topMiner).length;
      if (round.split !== true && onWinner > 0) expect(tops).toBe(1);
      else expect(tops).toBe(0);
    }
    expect(checkedWallets).toBeGreaterThan(upTo * 10);
    expect(automatedWallets).toBeGreaterThan(0);
    expect(feesShown).toBeGreaterThan(0);
    expect(partly).toBeGreaterThan(0);
    // Published: the rows of the rounds as stored, and the live round's deploys as they landed.
    await waitFor('published miners and deploys', async () => settled.length > 0 && deployed.length > 0, 30_000);
    const sample = settled[settled.length - 1]!;
    expect((await store.roundMiners(sample.roundId))!.miners).toEqual(sample.miners);
    const live = deployed[0]!;
    const liveTruth = devnet.roundDeployList(live.roundId)!;
    expect(liveTruth.some((d) => d.authority === live.address && (live.squares === null || live.squares.every((s) => (d.squares & (1 << s)) !== 0)))).toBe(true);
    await bus.close();
  }, 240_000);
});
