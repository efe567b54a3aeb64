import type { DerivedEvent, RoundEventBody } from './events';
import { latestIntactCheckpoint, reconcile, type LoggedRoundEvent } from './reconcile';

const ts = (roundId: number): string => new Date(Date.UTC(2026, 0, 1) + roundId * 60_000).toISOString();

function drought(roundId: number, grid: number, length: number): DerivedEvent<RoundEventBody> {
  return { dedupKey: `drought_broken:${roundId}`, ts: ts(roundId), body: { kind: 'drought_broken', grid, drought: length, roundId } };
}

function solMilestone(roundId: number, value: number): DerivedEvent<RoundEventBody> {
  return { dedupKey: `milestone:deployedSol:${value}`, ts: ts(roundId), body: { kind: 'milestone', metric: 'deployedSol', value, roundId } };
}

const logged = (id: number, e: DerivedEvent<RoundEventBody>): LoggedRoundEvent => ({ id, ...e });

describe('reconcile', () => {
  it('leaves the log alone when it already holds what the rounds imply, whatever the order of the fields', () => {
    const derived = [drought(105, 3, 120)];
    const readBack: LoggedRoundEvent = { id: 7, dedupKey: 'drought_broken:105', ts: ts(105), body: { roundId: 105, drought: 120, grid: 3, kind: 'drought_broken' } };
    expect(reconcile(derived, [readBack], { after: 100, upTo: 110 })).toEqual([]);
  });

  it('appends an event the log lacks', () => {
    expect(reconcile([drought(101, 4, 100)], [], { after: 100, upTo: 110 })).toEqual([drought(101, 4, 100)]);
  });

  it('withdraws an event whose numbers changed, then appends the one that holds', () => {
    // Round 105's drought was counted from round 100 (the first round then stored); rounds 1..99 arrived later.
    const stale = logged(7, drought(105, 3, 4));
    expect(reconcile([drought(105, 3, 104)], [stale], { after: null, upTo: 105 })).toEqual([
      { dedupKey: 'withdrawn:7', ts: ts(105), body: { kind: 'withdrawn', eventId: 7, eventKind: 'drought_broken', roundId: 105 } },
      drought(105, 3, 104),
    ]);
  });

  it('withdraws an event of a derived round that the rounds no longer imply', () => {
    const streak: DerivedEvent<RoundEventBody> = { dedupKey: 'streak:113', ts: ts(113), body: { kind: 'streak', grid: 2, length: 3, roundId: 113 } };
    expect(reconcile([], [logged(9, streak)], { after: 110, upTo: 120 })).toEqual([
      { dedupKey: 'withdrawn:9', ts: ts(113), body: { kind: 'withdrawn', eventId: 9, eventKind: 'streak', roundId: 113 } },
    ]);
  });

  it('keeps the events of rounds not derived again yet', () => {
    expect(reconcile([], [logged(9, drought(400, 1, 150))], { after: 100, upTo: 200 })).toEqual([]);
  });

  it('moves a deployedSol milestone reached earlier once earlier rounds are stored', () => {
    const atLiveRound = logged(12, solMilestone(410, 100_000));
    expect(reconcile([solMilestone(250, 100_000)], [atLiveRound], { after: 200, upTo: 300 })).toEqual([
      { dedupKey: 'withdrawn:12', ts: ts(410), body: { kind: 'withdrawn', eventId: 12, eventKind: 'milestone', roundId: 410 } },
      solMilestone(250, 100_000),
    ]);
  });

  it('withdraws by ascending id and appends in derivation order', () => {
    const derived = [drought(101, 1, 100), drought(102, 2, 100)];
    const log = [logged(20, drought(103, 5, 100)), logged(3, drought(102, 2, 99))];
    expect(reconcile(derived, log, { after: 100, upTo: 103 }).map((e) => e.dedupKey)).toEqual(['withdrawn:3', 'withdrawn:20', 'drought_broken:101', 'drought_broken:102']);
  });
});

describe('latestIntactCheckpoint', () => {
  const checkpoints = [
    { roundId: 10, roundCount: 10 },
    { roundId: 25, roundCount: 20 },
    { roundId: 40, roundCount: 30 },
  ];

  it('is the newest checkpoint whose rounds are all still the ones it counted', () => {
    expect(latestIntactCheckpoint(checkpoints, [10, 20, 30])).toEqual(checkpoints[2]);
    // A round stored between 25 and 40 (id 31, say): counted at 40 only.
    expect(latestIntactCheckpoint(checkpoints, [10, 20, 31])).toEqual(checkpoints[1]);
  });

  it('is null when a round arrived at or below the first checkpoint', () => {
    expect(latestIntactCheckpoint(checkpoints, [11, 21, 31])).toBeNull();
    expect(latestIntactCheckpoint([], [])).toBeNull();
  });
});
