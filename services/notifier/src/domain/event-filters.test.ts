import { EVENT_KINDS, type LogEvent } from '@gridlab/contracts';
import { eventFilterProblems, filterableFields, passesFilters } from './event-filters';

const TS = '2026-01-01T00:00:00.000Z';
const bigRound = (totalMiners: number | null): LogEvent => ({ id: 9, ts: TS, kind: 'big_round', roundId: 50, deployedSol: 120, thresholdSol: 80, multiplier: 3, winningSquare: 4, totalMiners });

describe('filterableFields', () => {
  it("lists each kind's own fields from the event log's schema, not id, ts or kind", () => {
    expect(filterableFields('drought_broken')).toEqual(['grid', 'drought', 'roundId']);
    expect(filterableFields('subscription')).toEqual(['action', 'plan', 'activeSubs']);
    for (const kind of EVENT_KINDS) expect(filterableFields(kind)).not.toEqual(expect.arrayContaining(['id']));
  });
});

describe('passesFilters', () => {
  it('applies every comparison of the DSL grammar', () => {
    const event = bigRound(300);
    expect(passesFilters(event, [])).toBe(true);
    expect(passesFilters(event, [{ field: 'multiplier', op: '>=', value: 3 }])).toBe(true);
    expect(passesFilters(event, [{ field: 'multiplier', op: '>', value: 3 }])).toBe(false);
    expect(passesFilters(event, [{ field: 'multiplier', op: '<', value: 3.5 }, { field: 'winningSquare', op: '==', value: 4 }])).toBe(true);
    expect(passesFilters(event, [{ field: 'multiplier', op: '<=', value: 2.9 }])).toBe(false);
  });

  it('fails a comparison with a field that is null on the event', () => {
    expect(passesFilters(bigRound(null), [{ field: 'totalMiners', op: '<', value: 1e9 }])).toBe(false);
    expect(passesFilters(bigRound(10), [{ field: 'totalMiners', op: '<', value: 1e9 }])).toBe(true);
  });

  it('compares an enumerated field by equality', () => {
    const tier: LogEvent = { id: 1, ts: TS, kind: 'tier', activeSubs: 100, tokenNow: 0.2, direction: 'up' };
    expect(passesFilters(tier, [{ field: 'direction', op: '==', value: 'up' }])).toBe(true);
    expect(passesFilters(tier, [{ field: 'direction', op: '==', value: 'down' }])).toBe(false);
  });
});

describe('eventFilterProblems', () => {
  it('refuses more than 16 filters', () => {
    const many = Array.from({ length: 17 }, () => ({ field: 'grid', op: '==', value: 1 }));
    expect(eventFilterProblems('streak', many, '/filters').problems).toEqual([{ path: '/filters', message: 'must be a list of at most 16 filters { field, op, value }' }]);
  });
});
