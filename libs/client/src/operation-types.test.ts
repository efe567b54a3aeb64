import { GridlabClient } from './client.ts';

// The checks that matter here are the `@ts-expect-error` lines: `make test` type-checks
// this file, and each line fails the build if the call it marks ever compiles.
describe('operations typed by their operationId', () => {
  const client = new GridlabClient({ baseUrl: 'http://127.0.0.1:9', retry: false, timeoutMs: 1 });
  const call = client['call'].bind(client);
  const request = client.request.bind(client);

  it('refuses an operation, parameters or a body the document does not define', () => {
    const wrong = [
      // @ts-expect-error no such operation in the document
      () => call('getNope', {}),
      // @ts-expect-error the round's path parameter is `id`
      () => call('getRound', { path: { n: 1 } }),
      // @ts-expect-error listRounds takes no `sort`
      () => call('listRounds', { query: { sort: 'asc' } }),
      // @ts-expect-error a strategy update carries name and active only
      () => call('updateStrategy', { path: { id: 'stg_x' }, body: { dsl: {} } }),
      // @ts-expect-error getStats takes no path parameters
      () => request('getStats', { path: { id: 1 } }),
      // @ts-expect-error getRound needs its path parameter
      () => request('getRound'),
      // @ts-expect-error createStrategy needs its body
      () => request('createStrategy', {}),
      // @ts-expect-error the event streams are read with stream() and eventStream()
      () => request('streamLive'),
    ];
    expect(wrong).toHaveLength(8);
  });

  it('types the answer by the operation: a 200 or 201 JSON body, undefined for a 204', async () => {
    const page: Promise<{ count: number }> = request('listRounds', { query: { limit: 1 } }).catch(() => ({ count: 0 }));
    await expect(page).resolves.toEqual({ count: 0 });
    const created: Promise<{ strategy: { id: string } }> = request('createStrategy', { body: { name: 'n', dsl: { base_strategy: 'cold', params: { bet_size_lamports: 1 } } } }).catch(() => ({ strategy: { id: '' } }));
    await expect(created).resolves.toEqual({ strategy: { id: '' } });
    const signedOut: Promise<undefined> = request('endSession').catch(() => undefined);
    await expect(signedOut).resolves.toBeUndefined();
  });
});
