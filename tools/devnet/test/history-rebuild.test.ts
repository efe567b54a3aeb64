/**
 * The devnet's history as the indexer will read it: every round of every era, rebuilt
 * from its transactions alone (getSignaturesForAddress on the round's PDA, getTransaction,
 * readOreTransaction, rebuildRound), must be the round the devnet itself settled.
 */
import {
  type OreTransaction,
  type RoundLayout,
  type TransactionJson,
  OrePdas,
  inferPayoutRule,
  readOreTransaction,
  rebuildRound,
  toSettledRound,
} from '@gridlab/chain';
import type { PayoutRule, Round } from '@gridlab/contracts';
import { startDevnet, type Devnet } from '../src';
import { allSignatures, transactions } from './rpc-client';

const HISTORY = 240;
/** Voided rounds often enough that the history holds some in every era (seeded: the same ones each run). */
const VOIDED_RATE = 0.03;
let devnet: Devnet;
let pdas: OrePdas;

beforeAll(async () => {
  // No automations: an automated deploy's instruction names squares and an amount the program
  // ignores, and before the deployed-mask era its DeployEvent logs that mask too, so
  // rebuildRound cannot yet count such rounds (automated-deploys.test.ts covers them).
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds: HISTORY, seed: 23, eras: 'mixed', deploysPerRound: 40, voidedRoundRate: VOIDED_RATE, automatedShare: 0 });
  pdas = new OrePdas(devnet.programId);
  // A few live rounds too.
  await devnet.waitForSettled(HISTORY + 4, 30_000);
  devnet.pause();
});

afterAll(() => devnet.stop());

/** Both tests read the same rounds from the paused chain: each is fetched once. */
const fetched = new Map<number, Promise<OreTransaction[]>>();
function roundTransactions(id: number): Promise<OreTransaction[]> {
  let txs = fetched.get(id);
  if (txs === undefined) fetched.set(id, (txs = fetchRoundTransactions(id)));
  return txs;
}

async function fetchRoundTransactions(id: number): Promise<OreTransaction[]> {
  const ids = { programId: devnet.programId, board: pdas.board.toBase58() };
  const listed = await allSignatures(devnet.rpcUrl, pdas.round(id).toBase58());
  // The indexer passes them oldest first.
  const txs = await transactions<TransactionJson>(devnet.rpcUrl, listed.map((s) => s.signature).reverse());
  return txs.map((tx) => readOreTransaction(tx, ids));
}

const popcount = (mask: number): number => mask.toString(2).replace(/0/g, '').length;

describe('history rebuilt from the devnet transactions', () => {
  it('equals the devnet record of every settled round, in every era', async () => {
    const records = devnet.settledRounds().filter((r) => r.id <= HISTORY + 4);
    expect(records.map((r) => r.id)).toEqual(Array.from({ length: HISTORY + 4 }, (_, i) => i + 1));
    let previousRule: PayoutRule | null = null;
    let previousLayout: RoundLayout | null = null;
    const from = new Map<string, number>();
    const requestedMasks = { b: 0, later: 0 };
    const deployEvents = { b: 0, later: 0 };
    const resetLengths = new Map<number, number>();
    for (const record of records) {
      const txs = await roundTransactions(record.id);
      const rebuilt = rebuildRound({
        roundId: record.id,
        roundAddress: pdas.round(record.id).toBase58(),
        transactions: txs,
        // Round 1 has no earlier reset to show its creation: its neighbour's layout (history starts v3).
        fallbackLayout: previousLayout ?? 568,
      });
      if (!rebuilt.ok) throw new Error(`round ${record.id}: ${rebuilt.reason} ${rebuilt.detail}`);
      const rule = inferPayoutRule(rebuilt.account, previousRule);
      if (!rule.ok) throw new Error(rule.detail);
      const round: Round = toSettledRound(rebuilt.account, rebuilt.settledAt!, { payoutRule: rule.rule, productionCost: record.productionCost });
      // Neither the board's cost then nor the pool the round played for is in its transactions.
      expect({ ...round, productionCost: null, motherlodePool: null }).toEqual({ ...record, productionCost: null, motherlodePool: null });
      previousRule = rule.rule;
      previousLayout = rebuilt.account.layout;
      from.set(rebuilt.from, (from.get(rebuilt.from) ?? 0) + 1);

      const events = txs.flatMap((t) => t.events);
      const reset = events.find((e) => e.kind === 'reset' && e.roundId === record.id);
      if (reset?.kind !== 'reset') throw new Error(`round ${record.id}: no ResetEvent in its transactions`);
      resetLengths.set(record.id, reset.length);
      for (const e of events) {
        if (e.kind !== 'deploy') continue;
        if (record.id >= 21 && record.id < 41) deployEvents.b++;
        else deployEvents.later++;
        // The requested mask (quarter b) includes squares the miner already held: more bits than squares deployed.
        if (popcount(e.mask) !== e.totalSquares) {
          if (record.id >= 21 && record.id < 41) requestedMasks.b++;
          else requestedMasks.later++;
        }
      }
    }
    // First third in quarters: no DeployEvent (1-20), requested mask (21-40), deployed mask (41-60), 144-byte reset (61-80).
    expect(from.get('instructions')).toBe(20);
    expect(requestedMasks.b).toBeGreaterThan(0);
    // Masks were compared in the later eras too, not absent from them.
    expect(deployEvents.later).toBeGreaterThan(1000);
    expect(requestedMasks.later).toBe(0);
    expect(resetLengths.size).toBe(HISTORY + 4);
    expect([...resetLengths].filter(([id]) => id < 61).every(([, length]) => length === 128)).toBe(true);
    expect([...resetLengths].filter(([id]) => id >= 61).every(([, length]) => length === 144)).toBe(true);
  });

  it('logs the ResetEvent u64 @72 as num_winners, then total_miners from the middle of the 952-byte parimutuel era', async () => {
    // Mixed eras over 240 rounds: 952-byte parimutuel rounds from 81, total_miners logged
    // from 121, the returns rule from 161. Every round from 81 on is compared.
    const TOTAL_MINERS_FROM = 121;
    const compared = { numWinners: 0, totalMiners: 0, returns: 0, nobodyOnWinner: 0, voided: 0 };
    for (let id = 81; id <= HISTORY + 4; id++) {
      const record = devnet.settledRounds().find((r) => r.id === id);
      if (record === undefined) throw new Error(`round ${id}: not in the devnet's record`);
      const txs = await roundTransactions(id);
      const reset = txs.flatMap((t) => t.events).find((e) => e.kind === 'reset' && e.roundId === id);
      if (reset?.kind !== 'reset') throw new Error(`round ${id}: no ResetEvent in its transactions`);
      const square = record.winningSquare;
      const parimutuel = record.payoutRule === 'parimutuel';
      // The program's reset: the parimutuel one exits early (voided, or nobody on the winning
      // square) having logged 0; the returns one logs the round's miners when voided.
      let path: keyof typeof compared;
      let expected: number;
      if (square === null) {
        path = 'voided';
        expected = parimutuel ? 0 : record.totalMiners;
      } else if (parimutuel && record.deployed[square] === 0) {
        path = 'nobodyOnWinner';
        expected = 0;
      } else if (id < TOTAL_MINERS_FROM) {
        path = 'numWinners';
        expected = record.count[square]!;
      } else {
        path = parimutuel ? 'totalMiners' : 'returns';
        expected = record.totalMiners;
      }
      expect({ id, path, minersField: reset.minersField }).toEqual({ id, path, minersField: expected });
      compared[path]++;
    }
    // Each reading compared on many rounds, and on rounds where num_winners and total_miners differ.
    expect(compared.numWinners).toBeGreaterThanOrEqual(25);
    expect(compared.totalMiners).toBeGreaterThanOrEqual(25);
    expect(compared.returns).toBeGreaterThanOrEqual(60);
    expect(compared.voided).toBeGreaterThanOrEqual(1);
    const differing = devnet
      .settledRounds()
      .filter((r) => r.id >= 81 && r.id < TOTAL_MINERS_FROM && r.winningSquare !== null && r.count[r.winningSquare]! !== r.totalMiners);
    expect(differing.length).toBeGreaterThanOrEqual(25);
  });
});
