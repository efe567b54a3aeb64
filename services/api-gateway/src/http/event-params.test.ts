import { pollParams, streamParams } from './event-params';

describe('event query parameters', () => {
  it('defaults and accepts the documented ranges', () => {
    expect(pollParams({})).toEqual({ since: 0, limit: 100, kind: undefined });
    expect(pollParams({ since: '42', limit: '1000', kind: 'streak' })).toEqual({ since: 42, limit: 1000, kind: 'streak' });
    expect(streamParams(new URLSearchParams(''), undefined)).toEqual({ since: null, kind: undefined });
    expect(streamParams(new URLSearchParams('kind=tier'), '17')).toEqual({ since: 17, kind: 'tier' });
    expect(streamParams(new URLSearchParams('since=3'), '17')).toEqual({ since: 3, kind: undefined });
  });

  it('rejects everything else with the path of the bad value', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ since: '-1' }, '/query/since'],
      [{ since: '1.5' }, '/query/since'],
      [{ since: 'abc' }, '/query/since'],
      [{ limit: '0' }, '/query/limit'],
      [{ limit: '1001' }, '/query/limit'],
      [{ kind: 'weather' }, '/query/kind'],
      [{ kind: ['streak', 'tier'] }, '/query/kind'],
    ];
    for (const [query, path] of cases) expect(() => pollParams(query)).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ path })] }));
    expect(() => streamParams(new URLSearchParams('since=x'), undefined)).toThrow(/since/);
    expect(() => streamParams(new URLSearchParams('since=1&since=2'), undefined)).toThrow(/once/);
    expect(() => streamParams(new URLSearchParams('kind=nope'), undefined)).toThrow(/kind/);
    expect(() => streamParams(new URLSearchParams(''), 'abc')).toThrow(/Last-Event-ID/);
  });
});
