/**
 * The forward writer over a partly known round (rebuilt from transactions whose automated
 * deploys did not show their squares): no strategy is priced on it; the writer moves past
 * it as past a missing round and settles the rounds around it. In-memory ports: what is
 * tested is the writer's order of work, not the store.
 */
import type { Round } from '@gridlab/contracts';
import type { ActiveSession, SessionState, StatsRow } from '@gridlab/lab-store';
import { createLogger } from '@gridlab/logger';
import { PAYOUT_REVISION } from '@gridlab/strategy';
import { syntheticRounds } from '@gridlab/testing';
import { ForwardWriter } from './forward-writer';
import type { ForwardLedger, ForwardTx, StoredRounds } from './ports';

const SESSION: ActiveSession = { id: 'strategy-1', sessionSeq: 1, sessionStartRoundId: 2 };
const ZERO_STATS: StatsRow = {
  strategyId: SESSION.id,
  sessionSeq: 1,
  roundsObserved: 0,
  roundsSettled: 0,
  roundsBet: 0,
  roundsWon: 0,
  squaresBet: 0,
  netLamports: 0,
  stakeLamports: 0,
  peakLamports: 0,
  minNetLamports: 0,
  maxDrawdownLamports: 0,
  streak: 0,
  maxStreak: 0,
  lateCount: 0,
  roiPercent: 0,
  lastRoundId: null,
  oreEarned: '0',
  oreValueLamports: 0,
};

/** Rounds 1..6, round 4 partly known. */
function storedRounds(): Round[] {
  return syntheticRounds(6, { seed: 5, firstId: 1, voidedRate: 0 }).map((r) =>
    r.id === 4 ? { ...r, source: 'transactions_partial', deployed: r.deployed.map(() => null), count: r.count.map(() => null), totalMiners: null } : r,
  );
}

/** A ledger in memory that records what the writer asked of it. */
function ledger(start: number) {
  const calls = { settled: [] as number[], dropped: [] as number[], progress: [] as number[] };
  let through = start;
  const tx: ForwardTx = {
    get settledThrough() {
      return through;
    },
    activeSessions: async () => [SESSION],
    sessionStates: async () => [{ ...SESSION, dsl: { base_strategy: 'all_25', params: { bet_size_lamports: 1_000_000 } }, stats: ZERO_STATS } satisfies SessionState],
    recordedFor: async () => new Set<string>(),
    record: async () => undefined,
    settle: async (roundId) => void calls.settled.push(roundId),
    dropUnsettledBefore: async (roundId) => void calls.dropped.push(roundId),
    saveStats: async () => undefined,
    followSubscriptions: async () => ({ stopped: 0, resumed: 0 }),
    stop: async () => undefined,
    saveProgress: async (roundId) => {
      through = roundId;
      calls.progress.push(roundId);
    },
    regenerateLeaderboard: async () => undefined,
    settledHits: async () => [],
    settledBets: async () => [],
    statsOf: async () => [],
    repricePredictions: async () => undefined,
    savePayoutRevision: async () => undefined,
  };
  const store: ForwardLedger = {
    settledThrough: async () => through,
    initProgress: async (roundId) => (through = roundId),
    payoutRevision: async () => PAYOUT_REVISION,
    tx: (fn) => fn(tx),
  };
  return { store, calls };
}

describe('the forward writer and a partly known round', () => {
  it('settles the rounds around it and moves past it, pricing no strategy on it', async () => {
    const rounds = storedRounds();
    const stored: StoredRounds = {
      getRounds: async ({ fromId, toId }) => rounds.filter((r) => r.id >= fromId && r.id <= (toId ?? Infinity)),
      latestId: async () => 6,
      contiguousAfter: async (last, limit) => rounds.filter((r) => r.id > last).slice(0, limit),
    };
    const { store, calls } = ledger(1);
    const writer = new ForwardWriter(store, stored, { settled: () => undefined, recorded: () => undefined }, createLogger({ service: 'test', silent: true }), { minRoundsToQualify: 1, leaderboardSize: 10 });
    await writer.load();
    await writer.poke();
    expect(calls.settled).toEqual([2, 3, 5, 6]);
    // Round 4's pending predictions can never settle: dropped when the writer passed it.
    expect(calls.dropped).toContain(5);
    expect(calls.progress).toEqual([2, 3, 4, 5, 6]);
  });
});
