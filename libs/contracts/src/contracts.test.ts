import { InputError } from '@gridlab/errors';
import * as contracts from './index';
import { eventMatchesKind, eventValidator, natsNames, type LogEvent } from './index';

const validateRound = eventValidator('roundSettled');
const validateLiveSnapshot = eventValidator('liveUpdated');
const validateLogEvent = eventValidator('eventAppended');

const round = {
  id: 7,
  deployed: Array(25).fill(1),
  count: Array(25).fill(1),
  winningSquare: 3,
  totalDeployed: 25,
  totalWinnings: 10,
  totalVaulted: 1,
  totalMiners: 25,
  motherlode: 0,
  topMinerReward: 0,
  slotHash: 'ab'.repeat(32),
  settledAt: '2026-11-22T06:11:10.123Z',
  payoutRule: 'parimutuel',
  oreReward: null,
  topMiner: null,
  split: null,
  productionCost: null,
  source: 'account',
  motherlodePool: null,
};

const returnsRound = {
  ...round,
  payoutRule: 'returns',
  oreReward: 100_000_000_000,
  topMiner: 'SpLiT11111111111111111111111111111111111112',
  split: true,
  productionCost: 312_000_000,
  motherlodePool: 23_000_000_000_000,
};

describe('contracts', () => {
  it('prefixes subjects, streams and buckets of a namespace', () => {
    const names = natsNames('t1');
    expect(names.subjects.roundSettled).toBe('t1.grid.round.settled');
    expect(names.streams.rounds).toBe('T1_ROUNDS');
    expect(names.buckets.live).toBe('T1_LIVE');
    expect(natsNames().subjects.roundSettled).toBe('grid.round.settled');
  });

  it('refuses a prefix that could inject subject tokens or wildcards', () => {
    expect(() => natsNames('a.b')).toThrow(RangeError);
    expect(() => natsNames('*')).toThrow(RangeError);
  });

  it('accepts a valid round and a voided one', () => {
    expect(validateRound(round)).toBe(round);
    expect(validateRound({ ...round, winningSquare: null }).winningSquare).toBeNull();
    expect(validateRound(returnsRound)).toBe(returnsRound);
    expect(() => validateRound({ ...returnsRound, payoutRule: 'lottery' })).toThrow(/\/payoutRule/);
    expect(() => validateRound({ ...returnsRound, topMiner: '0OIl' })).toThrow(/\/topMiner/);
    const { payoutRule: _omitted, ...withoutRule } = round;
    expect(() => validateRound(withoutRule)).toThrow(/payoutRule/);
  });

  it('rejects a round with 24 squares, a fractional lamport or an extra field, naming the path', () => {
    expect(() => validateRound({ ...round, deployed: Array(24).fill(1) })).toThrow(/\/deployed/);
    expect(() => validateRound({ ...round, totalDeployed: 1.5 })).toThrow(/\/totalDeployed/);
    expect(() => validateRound({ ...round, extra: 1 })).toThrow(/\/extra is not an accepted property/);
  });
});

describe('live snapshot schema', () => {
  const snapshot = {
    roundId: 8,
    status: 'active',
    deployed: Array(25).fill(0),
    count: Array(25).fill(0),
    totalDeployed: 0,
    totalMiners: 0,
    secondsLeft: 12.4,
    slot: 100,
    startSlot: 90,
    endSlot: 240,
    prevRound: round,
    updatedAt: '2026-11-22T06:11:10.123Z',
  };

  it('accepts a snapshot with or without a previous round', () => {
    expect(validateLiveSnapshot(snapshot)).toBe(snapshot);
    expect(validateLiveSnapshot({ ...snapshot, prevRound: null, secondsLeft: null, endSlot: null, status: 'waiting' })).toBeTruthy();
  });

  it('rejects an unknown status and a malformed previous round', () => {
    expect(() => validateLiveSnapshot({ ...snapshot, status: 'done' })).toThrow(/status/);
    expect(() => validateLiveSnapshot({ ...snapshot, prevRound: { ...round, slotHash: 'zz' } })).toThrow(/prevRound/);
  });
});

describe('every named schema', () => {
  // Validators compile on first use: this compiles one of every named schema, so a broken schema fails here.
  const named = contracts.NAMED_SCHEMAS.map((schema) => [schema.$id!, schema] as const);

  it.each(named)('%s compiles and refuses a non-object as invalid input', (_id, schema) => {
    let error: unknown;
    try {
      contracts.validatorOf(schema)(7);
    } catch (e) {
      error = e;
    }
    // A schema that does not compile throws a plain Error here, not an InputError.
    expect(error).toBeInstanceOf(InputError);
  });

  it('checks lab requests by path, the errors naming the message', () => {
    const backtest = contracts.commandValidators('labBacktest').request;
    expect(() => backtest({ dsl: {}, fromRoundId: -1, extra: 1 })).toThrow('invalid backtest request: ');
    expect(() => backtest({ dsl: {}, fromRoundId: -1, extra: 1 })).toThrow('/fromRoundId must be >= 0');
    expect(() => backtest({ dsl: {}, fromRoundId: -1, extra: 1 })).toThrow('/extra is not an accepted property');
    expect(contracts.commandValidators('labAnalytics').request({ dsl: { base_strategy: 'cold' } })).toEqual({ dsl: { base_strategy: 'cold' } });
  });
});

describe('withdrawn events', () => {
  const withdrawn: LogEvent = { id: 9, ts: '2026-01-01T00:00:00.000Z', kind: 'withdrawn', eventId: 4, eventKind: 'drought_broken', roundId: 105 };

  it('validates a withdrawal and refuses one of a billing kind', () => {
    expect(validateLogEvent(withdrawn)).toEqual(withdrawn);
    expect(() => validateLogEvent({ ...withdrawn, eventKind: 'tier' })).toThrow(InputError);
  });

  it('passes the kind filter of the kind it withdraws, and its own', () => {
    expect(['drought_broken', 'withdrawn', 'streak'].map((k) => eventMatchesKind(withdrawn, k as LogEvent['kind']))).toEqual([true, true, false]);
    const streak: LogEvent = { id: 3, ts: withdrawn.ts, kind: 'streak', grid: 1, length: 3, roundId: 7 };
    expect([eventMatchesKind(streak, 'streak'), eventMatchesKind(streak, 'drought_broken')]).toEqual([true, false]);
  });
});
