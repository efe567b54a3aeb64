import { INITIAL_WATCH_STATE, roundEvents, type RoundWatchEvent } from './rounds';
import type { LiveView, Round } from './types';

const squares = (): number[] => Array.from({ length: 25 }, () => 0);
const round = (id: number): Round => ({
  id,
  deployed: squares(),
  count: squares(),
  winningSquare: 3,
  totalDeployed: 0,
  totalWinnings: 0,
  totalVaulted: 0,
  totalMiners: 0,
  motherlode: 0,
  topMinerReward: 0,
  slotHash: 'a'.repeat(64),
  settledAt: '2026-11-23T00:00:00.000Z',
  payoutRule: 'returns',
  oreReward: null,
  topMiner: null,
  split: null,
  productionCost: null,
  source: 'account',
  motherlodePool: null,
});
const view = (roundId: number, prev: number | null, totalDeployed = 0): LiveView => ({
  roundId,
  status: 'active',
  deployed: squares(),
  count: squares(),
  totalDeployed,
  totalMiners: 0,
  secondsLeft: 10,
  slot: 1,
  startSlot: 1,
  endSlot: 100,
  prevRound: prev === null ? null : round(prev),
  updatedAt: '2026-11-23T00:00:00.000Z',
  stale: false,
});

function run(views: LiveView[]): Array<[RoundWatchEvent['type'], number]> {
  let state = INITIAL_WATCH_STATE;
  const out: Array<[RoundWatchEvent['type'], number]> = [];
  for (const v of views) {
    const next = roundEvents(state, v);
    state = next.state;
    out.push(...next.events.map((e): [RoundWatchEvent['type'], number] => [e.type, e.roundId]));
  }
  return out;
}

describe('roundEvents', () => {
  it('opens the current round, updates it, then reports its settlement before the next round opens', () => {
    expect(run([view(10, 9), view(10, 9, 5), view(11, 10), view(11, 10, 7)])).toEqual([
      ['opened', 10],
      ['updated', 10],
      ['settled', 10],
      ['opened', 11],
      ['updated', 11],
    ]);
  });

  it('does not report the round settled before the watch began, nor an older snapshot after a reconnect', () => {
    expect(run([view(10, 9), view(9, 8), view(10, 9)])).toEqual([
      ['opened', 10],
      ['updated', 10],
    ]);
  });

  it('reports a settlement seen while the next round waits (prevRound appears before the round id moves)', () => {
    expect(run([view(10, null), view(10, 10), view(11, 10)])).toEqual([
      ['opened', 10],
      ['settled', 10],
      ['updated', 10],
      ['opened', 11],
    ]);
  });

  it('names the rounds that settled while no snapshot arrived (a reconnect), once, before the settlement it sees', () => {
    let state = INITIAL_WATCH_STATE;
    const missed = [view(10, 9), view(10, 9, 5), view(15, 14), view(16, 15)].map((v) => {
      const next = roundEvents(state, v);
      state = next.state;
      return next.missed;
    });
    expect(missed).toEqual([null, null, { from: 10, to: 13 }, null]);
  });
});
