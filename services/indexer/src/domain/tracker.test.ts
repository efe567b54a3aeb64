import { decodeRound, encodeRound } from '@gridlab/chain';
import { buildSnapshot } from './snapshot';
import { RoundTracker } from './tracker';

const board = (roundId: number, startSlot: number, endSlot: number | null) => ({ roundId, startSlot, endSlot, epochOrCost: 0 });
const round = (id: number, totalDeployed: number) =>
  decodeRound(encodeRound({ id, deployed: [totalDeployed, ...Array(24).fill(0)], count: [3, ...Array(24).fill(0)], totalDeployed, totalMiners: 3 }));

describe('RoundTracker', () => {
  it('settles the previous round on first sight, then each round the board moves past', () => {
    const t = new RoundTracker();
    expect(t.onBoard(board(10, 100, null), 100)).toEqual({ opened: null, settle: [9], snapshotChanged: true });
    expect(t.onBoard(board(10, 100, null), 101).snapshotChanged).toBe(false);
    expect(t.onBoard(board(10, 102, 252), 102)).toMatchObject({ opened: null, settle: [], snapshotChanged: true });
    expect(t.onBoard(board(11, 290, null), 290)).toEqual({
      opened: { roundId: 11, previousRoundId: 10 },
      settle: [10],
      snapshotChanged: true,
    });
  });

  it('settles every skipped round when the board jumps', () => {
    const t = new RoundTracker();
    t.onBoard(board(10, 100, null), 100);
    expect(t.onBoard(board(14, 900, null), 900).settle).toEqual([10, 11, 12, 13]);
  });

  it('ignores a stale board seen late from the poller', () => {
    const t = new RoundTracker();
    t.onBoard(board(11, 290, null), 290);
    expect(t.onBoard(board(10, 100, 250), 200)).toEqual({ opened: null, settle: [], snapshotChanged: false });
    expect(t.board?.roundId).toBe(11);
  });

  it('remembers the board that first moved past each round, whose cost word is that settlement\'s, when settling lags', () => {
    const t = new RoundTracker();
    t.onBoard({ ...board(10, 100, 250), epochOrCost: 7 }, 120);
    t.onBoard({ ...board(11, 290, null), epochOrCost: 8 }, 290);
    t.onBoard({ ...board(11, 292, 442), epochOrCost: 8 }, 292);
    t.onBoard({ ...board(12, 480, null), epochOrCost: 9 }, 480);
    // Round 10 settled at the board of round 11, though the tracker's board is now round 12's.
    expect([t.boardPast(10)?.epochOrCost, t.boardPast(11)?.epochOrCost, t.board?.epochOrCost]).toEqual([8, 9, 9]);
    t.onBoard({ ...board(15, 900, null), epochOrCost: 12 }, 900);
    expect([12, 13, 14].map((id) => t.boardPast(id)?.epochOrCost)).toEqual([12, 12, 12]);
    expect(t.boardPast(9)).toBeNull();
  });

  it('tracks only the current round and drops repeats', () => {
    const t = new RoundTracker();
    t.onBoard(board(10, 100, 250), 120);
    expect(t.onRound(round(9, 500), 121).snapshotChanged).toBe(false);
    expect(t.onRound(round(10, 500), 121).snapshotChanged).toBe(true);
    expect(t.onRound(round(10, 500), 122).snapshotChanged).toBe(false);
    expect(t.onRound(round(10, 900), 123).snapshotChanged).toBe(true);
    expect(t.round?.totalDeployed).toBe(900);
  });
});

describe('buildSnapshot', () => {
  const now = new Date('2026-11-22T06:11:10.123Z');
  it('reports waiting with no end slot and null secondsLeft', () => {
    const s = buildSnapshot(board(10, 100, null), null, 101, null, 0.4, now);
    expect(s).toMatchObject({ roundId: 10, status: 'waiting', secondsLeft: null, totalDeployed: 0, endSlot: null });
    expect(s.deployed).toHaveLength(25);
  });

  it('counts down while active and reads 0 in the intermission', () => {
    const r = round(10, 5000);
    expect(buildSnapshot(board(10, 100, 250), r, 200, null, 0.4, now)).toMatchObject({ status: 'active', secondsLeft: 20, totalDeployed: 5000, totalMiners: 3 });
    expect(buildSnapshot(board(10, 100, 250), r, 260, null, 0.4, now)).toMatchObject({ status: 'intermission', secondsLeft: 0 });
    expect(buildSnapshot(board(10, 100, 250), r, 200, null, 0.4, now).updatedAt).toBe('2026-11-22T06:11:10.123Z');
  });

  it('never shows the previous round as the current one', () => {
    const s = buildSnapshot(board(11, 300, null), round(10, 5000), 301, null, 0.4, now);
    expect(s.totalDeployed).toBe(0);
  });
});

describe('RoundTracker and the Treasury', () => {
  it('asks for a new snapshot when the motherlode pool changes, not when it is read again', () => {
    const tracker = new RoundTracker();
    expect(tracker.treasury).toBeNull();
    expect(tracker.onTreasury({ motherlode: 5 }, 10).snapshotChanged).toBe(true);
    expect(tracker.onTreasury({ motherlode: 5 }, 11).snapshotChanged).toBe(false);
    expect(tracker.onTreasury({ motherlode: 7 }, 12).snapshotChanged).toBe(true);
    expect(tracker.treasury).toEqual({ motherlode: 7 });
    expect(tracker.slot).toBe(12);
  });

  // Round 10 runs slots 100..250; its reset (slot 260) pays no motherlode and adds 0.2 ORE
  // to the pool (20 -> 22), moving the board to round 11 in the same transaction.
  const liveRound10 = (t: RoundTracker): void => {
    t.onBoard(board(10, 100, null), 100);
    t.onBoard(board(10, 100, 250), 110);
  };

  it('remembers the pool each round played for when the Treasury update comes after the board moves', () => {
    const t = new RoundTracker();
    liveRound10(t);
    t.onTreasury({ motherlode: 20 }, 120);
    t.onBoard(board(11, 261, null), 260);
    t.onTreasury({ motherlode: 22 }, 260);
    expect(t.poolOf(10)).toBe(20);
    t.onBoard(board(11, 261, 411), 300);
    t.onBoard(board(12, 421, null), 420);
    expect(t.poolOf(11)).toBe(22);
  });

  it('does not credit a round with the pool its own reset wrote when that update comes first', () => {
    const t = new RoundTracker();
    liveRound10(t);
    t.onTreasury({ motherlode: 20 }, 120);
    t.onTreasury({ motherlode: 22 }, 260);
    t.onBoard(board(11, 261, null), 260);
    expect(t.poolOf(10)).toBe(20);
    t.onBoard(board(11, 261, 411), 300);
    t.onBoard(board(12, 421, null), 420);
    expect(t.poolOf(11)).toBe(22);
  });

  it('carries the pool over a reset that left it unchanged (no update comes)', () => {
    const t = new RoundTracker();
    liveRound10(t);
    t.onTreasury({ motherlode: 20 }, 120);
    t.onBoard(board(11, 261, 411), 260);
    t.onBoard(board(12, 421, null), 420);
    expect(t.poolOf(11)).toBe(20);
  });

  it('knows no pool for a round it did not watch live, nor for rounds the board skipped', () => {
    const t = new RoundTracker();
    t.onBoard(board(10, 100, 250), 100);
    expect(t.poolOf(9)).toBeNull();
    t.onTreasury({ motherlode: 20 }, 120);
    t.onBoard(board(13, 700, null), 700);
    expect(t.poolOf(10)).toBe(20);
    expect([t.poolOf(11), t.poolOf(12)]).toEqual([null, null]);
  });

  it('ignores a Treasury read older than one already seen', () => {
    const t = new RoundTracker();
    liveRound10(t);
    t.onTreasury({ motherlode: 20 }, 130);
    t.onTreasury({ motherlode: 18 }, 120);
    t.onBoard(board(11, 261, null), 260);
    expect(t.poolOf(10)).toBe(20);
  });

  it('does not credit a round with a later reset read by a poll that had not yet seen the board move (its end slot unseen)', () => {
    const t = new RoundTracker();
    t.onBoard(board(10, 100, null), 100);
    t.onTreasury({ motherlode: 20 }, 100);
    // The poll reads the Treasury after round 10's reset at 260, then the board (already round 11).
    t.onTreasury({ motherlode: 22 }, 300);
    t.onBoard(board(11, 261, null), 300);
    expect(t.poolOf(10)).toBe(20);
    // A later read of the board still on round 11 confirms a read made before it.
    t.onBoard(board(11, 261, null), 320);
    t.onTreasury({ motherlode: 22 }, 310);
    t.onBoard(board(12, 421, null), 430);
    expect(t.poolOf(11)).toBe(22);
  });
});
