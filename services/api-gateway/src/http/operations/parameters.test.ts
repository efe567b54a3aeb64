import { API } from '@gridlab/contracts';
import { compileParameters } from './parameters';

const errorAt = (path: string) => expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path })] });

describe("an operation's parameters, checked against the table", () => {
  const events = compileParameters(API.listEvents)!;
  const stream = compileParameters(API.streamEvents)!;
  const grid = compileParameters(API.getGrid)!;

  it('applies the defaults and accepts the documented ranges', () => {
    expect(events({ query: {} }).query).toEqual({ since: 0, limit: 100 });
    expect(events({ query: { since: '42', limit: '1000', kind: 'streak' } }).query).toEqual({ since: 42, limit: 1000, kind: 'streak' });
    expect(grid({ path: { n: '24' }, query: {} })).toMatchObject({ path: { n: 24 }, query: { limit: 200 } });
    expect(stream({ query: new URLSearchParams('kind=tier'), headers: { 'last-event-id': '17' } })).toMatchObject({ query: { kind: 'tier' }, header: { 'Last-Event-ID': 17 } });
    // An empty header is no header; parameters nobody declared are ignored.
    expect(stream({ query: new URLSearchParams('x=1'), headers: { 'last-event-id': '' } })).toMatchObject({ query: {}, header: {} });
  });

  it('names each bad value by where it was, in the words of its rule', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ since: '-1' }, '/query/since'],
      [{ since: '1.5' }, '/query/since'],
      [{ since: 'abc' }, '/query/since'],
      [{ since: '1e3' }, '/query/since'],
      [{ since: '0x10' }, '/query/since'],
      [{ since: ' 7' }, '/query/since'],
      [{ since: '007' }, '/query/since'],
      [{ since: '-0' }, '/query/since'],
      [{ since: '9007199254740993' }, '/query/since'],
      [{ limit: '0' }, '/query/limit'],
      [{ limit: '1001' }, '/query/limit'],
      [{ kind: 'weather' }, '/query/kind'],
      [{ kind: ['streak', 'tier'] }, '/query/kind'],
    ];
    for (const [query, path] of cases) expect(() => events({ query })).toThrow(errorAt(path));
    expect(() => events({ query: { limit: '1001' } })).toThrow('limit must be an integer from 1 to 1000');
    expect(() => grid({ path: { n: '25' }, query: {} })).toThrow(errorAt('/path/n'));
    expect(() => stream({ query: new URLSearchParams('since=1&since=2') })).toThrow(errorAt('/query/since'));
    expect(() => stream({ query: new URLSearchParams(''), headers: { 'last-event-id': 'abc' } })).toThrow(errorAt('/header/Last-Event-ID'));
  });

  it('lists every bad parameter, once each', () => {
    const error = (() => {
      try {
        grid({ path: { n: 'x' }, query: { limit: '0' } });
      } catch (e) {
        return e as { errors: { path: string }[] };
      }
      return null;
    })();
    expect(error?.errors.map((e) => e.path)).toEqual(['/path/n', '/query/limit']);
  });

  it('compiles nothing for an operation without parameters', () => {
    expect(compileParameters(API.getLive)).toBeUndefined();
  });
});
