import { dateTimeMs, isDateTime } from './date-time';

describe('isDateTime', () => {
  it.each(['2026-11-22T06:11:10.123Z', '2024-02-29T00:00:00Z', '2026-01-01T23:59:60+05:30', '2026-01-01 10:00:00-0800'])('accepts %s', (v) => {
    expect(isDateTime(v)).toBe(true);
  });

  it.each(['2026-02-29T00:00:00Z', '2026-02-31T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T10:00:00', '2026-01-01', 'yesterday', '2026-01-01T10:00:00+25:00'])(
    'rejects %s',
    (v) => {
      expect(isDateTime(v)).toBe(false);
    },
  );
});

describe('dateTimeMs', () => {
  it.each([
    ['2026-11-22T06:11:10.123Z', '2026-11-22T06:11:10.123Z'],
    ['2026-01-01 10:00:00-0800', '2026-01-01T18:00:00.000Z'],
    ['2026-01-01t10:00:00.5z', '2026-01-01T10:00:00.500Z'],
    // A leap second is the next second's start (PostgreSQL's reading), whatever its zone or fraction.
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['2016-12-31T23:59:60.250Z', '2017-01-01T00:00:00.250Z'],
    ['2017-01-01T05:29:60+05:30', '2017-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (value, iso) => {
    expect(isDateTime(value)).toBe(true);
    expect(new Date(dateTimeMs(value)).toISOString()).toBe(iso);
  });
});
