import { decodeRound, encodeRound, settleReturns, SolanaRpc, winningSquare } from '@gridlab/chain';
import bs58 from 'bs58';
import { eventValidator, type LiveSnapshot } from '@gridlab/contracts';
import { connectBus, decodeMessage } from '@gridlab/bus';
import { createLogger } from '@gridlab/logger';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { comparable, harness, metricValue, waitFor, waitForStored, type Harness } from './harness';

const validateLiveSnapshot = eventValidator('liveUpdated');
const validateRound = eventValidator('roundSettled');

/** SPEC 3's offsets read with a DataView: written apart from libs/chain's codec. */
function independentDecode(data: Uint8Array): Record<string, unknown> {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u64 = (at: number) => Number(view.getBigUint64(at, true));
  const squares = (at: number) => Array.from({ length: 25 }, (_, i) => u64(at + 8 * i));
  const hex = (at: number) => Buffer.from(data.subarray(at, at + 32)).toString('hex');
  if (data.length === 568) {
    return { deployed: squares(16), count: squares(248), slotHash: hex(216), motherlode: u64(456), totalVaulted: u64(552), totalWinnings: u64(560), totalMiners: u64(544) };
  }
  expect(data.length).toBe(952);
  const topMiner = bs58.encode(data.subarray(920, 952));
  return {
    deployed: squares(16),
    count: squares(416),
    slotHash: hex(616),
    motherlode: u64(656),
    totalVaulted: u64(896),
    totalWinnings: u64(904),
    totalMiners: u64(912),
    oreReward: squares(696).reduce((a, b) => a + b, 0),
    topMiner,
    split: topMiner === 'SpLiT11111111111111111111111111111111111112',
  };
}

let h: Harness;
const linedBelow = async (): Promise<number> => Number((await h.pool.query('SELECT lined_below FROM indexer.totals')).rows[0].lined_below);
beforeAll(async () => {
  h = await harness(30);
});
afterEach(() => h.stopIndexers());
afterAll(() => h.close());

describe('indexer against the devnet', () => {
  it('stores exactly the devnet rounds, publishes each once and streams snapshots', async () => {
    const bus = await connectBus({ servers: h.ns.natsUrl, name: 'test', logger: createLogger({ service: 't', silent: true }) });
    const snapshots: LiveSnapshot[] = [];
    const sub = bus.subscribe(h.names.subjects.liveUpdated, {
      callback: (_e, m) => {
        snapshots.push(decodeMessage(validateLiveSnapshot, m.data));
      },
    });
    const { indexer, metrics } = await h.startIndexer();
    const target = h.devnet.currentRoundId() + 8;
    await waitForStored(h, target);

    const stored = await h.repo.getRounds({ fromId: 1, toId: target });
    const expected = h.devnet.settledRounds().filter((r) => r.id <= target);
    expect(comparable(stored)).toEqual(comparable(expected));
    expect(await h.repo.count()).toBeGreaterThanOrEqual(target);
    // The leader stores each round's dump line soon after the round: the dump of stored
    // history streams those lines, and reads the same as the rounds themselves.
    await waitFor(async () => (await h.repo.aggregates()).lastId! < (await linedBelow()), 10_000, 'dump lines stored');
    const lines = await h.pool.query<{ line: string }>('SELECT line FROM indexer.round_lines WHERE id <= $1 ORDER BY id', [target]);
    expect(lines.rows.map((r) => r.line)).toEqual(stored.map((r) => JSON.stringify(r)));
    expect(await metricValue(metrics, 'indexer_round_lines_written_total')).toBeGreaterThanOrEqual(target);

    const jsm = await jetstreamManager(bus);
    await waitFor(async () => (await jsm.streams.info(h.names.streams.rounds)).state.messages >= target, 10_000, 'stream filled');
    const ids = new Set<number>();
    const info = await jsm.streams.info(h.names.streams.rounds);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(h.names.streams.rounds, { seq });
      if (m?.subject !== h.names.subjects.roundSettled) continue;
      const r = decodeMessage(validateRound, m.data);
      expect(ids.has(r.id)).toBe(false);
      ids.add(r.id);
    }
    for (let id = 1; id <= target; id++) expect(ids.has(id)).toBe(true);

    expect(snapshots.length).toBeGreaterThan(10);
    const last = snapshots[snapshots.length - 1]!;
    expect(last.roundId).toBeGreaterThan(target);
    // Right after the board moves, prevRound is the older round for the few ms the
    // settlement takes; then a snapshot with the new previous round follows.
    expect(snapshots.some((s) => s.prevRound?.id === s.roundId - 1 && s.roundId > target)).toBe(true);
    expect(snapshots.some((s) => s.status === 'active' && s.totalDeployed > 0)).toBe(true);
    const kv = await new Kvm(bus).open(h.names.buckets.live);
    const latest = decodeMessage(validateLiveSnapshot, (await kv.get(h.names.liveKey))!.value);
    expect(latest.roundId).toBeGreaterThanOrEqual(last.roundId);
    sub.unsubscribe();
    await bus.drain();
    await indexer.stop();
  });

  it('loses nothing across a restart, a 50-round outage and dropped sockets', async () => {
    const { indexer: first } = await h.startIndexer();
    const before = h.devnet.currentRoundId();
    await waitForStored(h, before);
    await first.stop();
    const resumeAfter = h.devnet.currentRoundId() + 50;
    await h.devnet.waitForSettled(resumeAfter, 30_000);
    const { indexer: second } = await h.startIndexer();
    h.devnet.dropWebSockets();
    await new Promise((r) => setTimeout(r, 300));
    h.devnet.dropWebSockets();
    const target = h.devnet.currentRoundId() + 5;
    await waitForStored(h, target);
    const stored = await h.repo.getRounds({ fromId: 1, toId: target });
    expect(stored.map((r) => r.id)).toEqual(Array.from({ length: target }, (_, i) => i + 1));
    expect(comparable(stored)).toEqual(comparable(h.devnet.settledRounds().filter((r) => r.id <= target)));
    expect(await h.repo.findGaps()).toEqual([]);
    await second.stop();
  });

  it('stores every era the devnet played, each round under the rule its totals show', async () => {
    const { indexer } = await h.startIndexer();
    const watchedFrom = h.devnet.currentRoundId() + 1;
    const target = watchedFrom + 3;
    await waitForStored(h, target);
    const stored = await h.repo.getRounds({ fromId: 1, toId: target });
    const rules = new Set(stored.map((r) => `${r.oreReward === null ? 568 : 952}:${r.payoutRule}`));
    expect([...rules].sort()).toEqual(['568:parimutuel', '952:parimutuel', '952:returns']);
    // Rounds the indexer saw settle carry the board's production cost of that moment.
    const live = stored.filter((r) => r.id >= watchedFrom);
    const devnetRecord = new Map(h.devnet.settledRounds().map((r) => [r.id, r]));
    expect(live.length).toBeGreaterThan(0);
    for (const r of live) expect(r.productionCost).toBe(devnetRecord.get(r.id)!.productionCost);
    // ...and the motherlode pool they played for.
    // (The first may have settled before the Treasury's first read reached the indexer: none then.)
    const pooled = live.filter((r) => r.motherlodePool !== null);
    expect(pooled.length).toBeGreaterThanOrEqual(live.length - 1);
    expect(pooled.map((r) => [r.id, r.motherlodePool])).toEqual(pooled.map((r) => [r.id, devnetRecord.get(r.id)!.motherlodePool]));
    // Every stored round equals a decode of its account made here from SPEC 3's offsets.
    const rpc = new SolanaRpc(h.devnet.rpcUrl);
    for (const r of stored) {
      const account = await rpc.getAccount(h.pdas.round(r.id).toBase58());
      expect(independentDecode(account!.data)).toEqual({
        deployed: r.deployed,
        count: r.count,
        slotHash: r.slotHash,
        motherlode: r.motherlode,
        totalVaulted: r.totalVaulted,
        totalWinnings: r.totalWinnings,
        totalMiners: r.totalMiners,
        ...(r.oreReward === null ? {} : { oreReward: r.oreReward, topMiner: r.topMiner, split: r.split }),
      });
    }
    await indexer.stop();
  });

  it('counts an account of unknown length as a decode error and never stores it', async () => {
    const { indexer, metrics } = await h.startIndexer();
    await waitFor(async () => indexer.status().role === 'leader', 10_000, 'leadership');
    h.devnet.pause();
    const current = h.devnet.currentRoundId();
    const odd = new Uint8Array(600);
    odd[0] = 109;
    new DataView(odd.buffer).setBigUint64(8, BigInt(current), true);
    await new Promise((r) => setTimeout(r, 300));
    h.devnet.setRawAccount(h.pdas.round(current).toBase58(), odd);
    await waitFor(async () => (await metricValue(metrics, 'indexer_decode_errors_total', { code: 'unknown_account_length' })) > 0, 5000, 'decode error counted');
    expect(() => decodeRound(odd)).toThrow();
    expect((await h.repo.storedIds([current])).size).toBe(0);
    h.devnet.resume();
    await indexer.stop();
  });

  it('never stores a 952-byte round that neither payout rule reproduces, and reports it in readiness', async () => {
    const deployed = Array.from({ length: 25 }, (_, i) => 1_000_000 * (i + 1));
    const slotHash = new Uint8Array(32).fill(7);
    const returns = settleReturns(deployed, winningSquare(slotHash));
    // Round 0 (the history starts at 1): settled on chain with totals of no rule.
    const bad = encodeRound({ id: 0, deployed, slotHash, totalWinnings: returns.totalWinnings + 5, totalVaulted: returns.totalVaulted }, 952);
    h.devnet.setRawAccount(h.pdas.round(0).toBase58(), bad);
    const { indexer, metrics } = await h.startIndexer();
    await waitFor(async () => (await metricValue(metrics, 'indexer_rule_mismatch_total')) > 0, 10_000, 'rule mismatch counted');
    expect((await h.repo.storedIds([0])).size).toBe(0);
    const report = (await indexer.checks['payoutRules']!()) as { rejectedRounds: number; latestRejected: { roundId: number; detail: string }[] };
    expect(report.rejectedRounds).toBe(1);
    expect(report.latestRejected[0]).toMatchObject({ roundId: 0, detail: expect.stringMatching(/match neither/) });
    await indexer.stop();
  });

  it('survives an unreachable RPC: counts the errors, reports not ready, keeps retrying', async () => {
    const { indexer, metrics } = await h.startIndexer({ rpcUrl: 'http://127.0.0.1:9', wsUrl: 'ws://127.0.0.1:9' });
    await waitFor(async () => (await metricValue(metrics, 'indexer_rpc_errors_total')) >= 2, 10_000, 'rpc errors counted');
    await expect(indexer.checks['rpc']!()).rejects.toThrow(/unreachable/);
    // It cannot tell which chain it would index, so it does not lead (and stores nothing).
    await expect(indexer.checks['chain']!()).rejects.toThrow(/not checked yet/);
    expect(indexer.status().role).toBe('standby');
    await indexer.stop();
  });
});
