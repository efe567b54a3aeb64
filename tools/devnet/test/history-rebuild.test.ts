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
let devnet: Devnet;
let pdas: OrePdas;

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds: HISTORY, seed: 23, eras: 'mixed', deploysPerRound: 40 });
  pdas = new OrePdas(devnet.programId);
  // A few live rounds too.
  await devnet.waitForSettled(HISTORY + 4, 30_000);
  devnet.pause();
});

afterAll(() => devnet.stop());

async function roundTransactions(id: number): Promise<OreTransaction[]> {
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
      resetLengths.set(record.id, reset!.kind === 'reset' ? reset!.length : 0);
      for (const e of events) {
        if (e.kind !== 'deploy') continue;
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
    expect(requestedMasks.later).toBe(0);
    expect([...resetLengths].filter(([id]) => id < 61).every(([, length]) => length === 128)).toBe(true);
    expect([...resetLengths].filter(([id]) => id >= 61).every(([, length]) => length === 144)).toBe(true);
  });

  it('logs the ResetEvent u64 @72 as num_winners, then total_miners from the middle of the 952-byte parimutuel era', async () => {
    for (const id of [100, 115, 125, 140, 200]) {
      const record = devnet.settledRounds().find((r) => r.id === id)!;
      const txs = await roundTransactions(id);
      const reset = txs.flatMap((t) => t.events).find((e) => e.kind === 'reset' && e.roundId === id)!;
      if (reset.kind !== 'reset' || record.winningSquare === null) continue;
      const expected = id < 121 ? record.count[record.winningSquare]! : record.totalMiners;
      // The parimutuel reset's early exit (nobody on the winning square) logged 0.
      expect(reset.minersField).toBe(record.deployed[record.winningSquare]! === 0 && record.payoutRule === 'parimutuel' ? 0 : expected);
    }
  });
});
