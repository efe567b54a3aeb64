import { GridlabClient } from './client.ts';

// The checks that matter here are the `@ts-expect-error` lines: `make test` type-checks
// this file, and each line fails the build if the call it marks ever compiles.
describe('operations typed by the OpenAPI paths', () => {
  const client = new GridlabClient({ baseUrl: 'http://127.0.0.1:9' });
  const call = client['call'].bind(client);

  it('refuses a path, a method or parameters the document does not define', () => {
    const wrong = [
      // @ts-expect-error no such path in the document
      () => call('get', '/api/v1/nope', {}),
      // @ts-expect-error /api/v1/live has no PUT
      () => call('put', '/api/v1/live', {}),
      // @ts-expect-error the round's path parameter is `id`
      () => call('get', '/api/v1/rounds/{id}', { path: { n: 1 } }),
      // @ts-expect-error /api/v1/rounds takes no `sort`
      () => call('get', '/api/v1/rounds', { query: { sort: 'asc' } }),
      // @ts-expect-error a strategy update carries name and active only
      () => call('patch', '/api/v1/lab/strategies/{id}', { path: { id: 'stg_x' }, body: { dsl: {} } }),
    ];
    expect(wrong).toHaveLength(5);
  });

  it('types the answer by the operation', async () => {
    const answer: Promise<{ count: number }> = call('get', '/api/v1/rounds', { query: { limit: 1 } }).catch(() => ({ count: 0 }));
    await expect(answer).resolves.toEqual({ count: 0 });
  });
});
