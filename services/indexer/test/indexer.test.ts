import { decodeRound } from '@gridlab/chain';
import { validateLiveSnapshot, validateRound, type LiveSnapshot } from '@gridlab/contracts';
import { connectBus, decodeMessage } from '@gridlab/bus';
import { createLogger } from '@gridlab/logger';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { comparable, harness, metricValue, waitFor, waitForStored, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await harness(30);
});
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
    const { indexer } = await h.startIndexer();
    const target = h.devnet.currentRoundId() + 8;
    await waitForStored(h, target);

    const stored = await h.repo.getRounds({ fromId: 1, toId: target });
    const expected = h.devnet.settledRounds().filter((r) => r.id <= target);
    expect(comparable(stored)).toEqual(comparable(expected));
    expect(await h.repo.count()).toBeGreaterThanOrEqual(target);

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

  it('counts a v4 (952-byte) round account as a decode error and never stores it', async () => {
    const { indexer, metrics } = await h.startIndexer();
    await waitFor(async () => indexer.status().role === 'leader', 10_000, 'leadership');
    h.devnet.pause();
    const current = h.devnet.currentRoundId();
    const v4 = new Uint8Array(952);
    v4[0] = 109;
    new DataView(v4.buffer).setBigUint64(8, BigInt(current), true);
    await new Promise((r) => setTimeout(r, 300));
    h.devnet.setRawAccount(h.pdas.round(current).toBase58(), v4);
    await waitFor(async () => (await metricValue(metrics, 'indexer_decode_errors_total', { code: 'unsupported_program_version' })) > 0, 5000, 'decode error counted');
    expect(() => decodeRound(v4)).toThrow();
    expect((await h.repo.storedIds([current])).size).toBe(0);
    h.devnet.resume();
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
