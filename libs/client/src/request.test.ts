/**
 * request(): any operation by its operationId, against a real HTTP server whose answers
 * the test scripts: the method, path, query, body and key each operation's entry sends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GridlabClient } from './client.ts';
import { GridlabApiError } from './errors.ts';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly auth: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

let server: Server;
let baseUrl: string;
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, contentType: req.headers['content-type'], body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  answer = (_req, res) => json(res, 200, { ok: true });
});

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const keyed = (): GridlabClient => new GridlabClient({ baseUrl, apiKey: 'grid_k', retry: false });

describe('request()', () => {
  it('sends an operation by its id: method, filled-in path and query, with the key of a paid operation', async () => {
    answer = (_req, res) => json(res, 200, { id: 7, square: 3 });
    await expect(keyed().request('getGrid', { path: { n: 7 }, query: { limit: 20 } })).resolves.toEqual({ id: 7, square: 3 });
    expect(seen).toEqual([{ method: 'GET', url: '/api/v1/grid/7?limit=20', auth: 'Bearer grid_k', contentType: undefined, body: '' }]);
  });

  it('leaves out the query values given as undefined, and takes no arguments where none are needed', async () => {
    await keyed().request('listRounds', { query: { limit: undefined } });
    await keyed().request('getStats');
    expect(seen.map((s) => s.url)).toEqual(['/api/v1/rounds', '/api/v1/stats']);
  });

  it('sends a body as JSON and answers the 201 body', async () => {
    answer = (_req, res) => json(res, 201, { strategy: { id: 'stg_1' } });
    const body = { name: 'cold', dsl: { base_strategy: 'cold' as const, params: { bet_size_lamports: 1 } } };
    await expect(keyed().request('createStrategy', { body })).resolves.toEqual({ strategy: { id: 'stg_1' } });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/lab/strategies', contentType: 'application/json' });
    expect(JSON.parse(seen[0]!.body)).toEqual(body);
  });

  it('encodes a path parameter, so a value cannot reach another path', async () => {
    await keyed().request('getStrategy', { path: { id: '../live?x=1' } });
    expect(seen[0]!.url).toBe('/api/v1/lab/strategies/..%2Flive%3Fx%3D1');
  });

  it('keeps the key from the operations that do not take it: public ones and the session cookie ones', async () => {
    await keyed().request('getPricing');
    await keyed().request('getSession');
    expect(seen.map((s) => [s.url, s.auth])).toEqual([
      ['/api/v1/pricing', undefined],
      ['/api/live/session', undefined],
    ]);
  });

  it('answers undefined for a 204', async () => {
    answer = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    await expect(keyed().request('endSession')).resolves.toBeUndefined();
    expect(seen[0]).toMatchObject({ method: 'DELETE', url: '/api/live/session' });
  });

  it('throws the problem of a non-2xx answer as a GridlabApiError', async () => {
    answer = (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'round_not_found', detail: 'no round 9' }));
    };
    const error = await keyed()
      .request('getRound', { path: { id: 9 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GridlabApiError);
    expect(error).toMatchObject({ status: 404, code: 'round_not_found' });
  });

  it('sends nothing for an unknown operation, a missing path parameter or an event stream', async () => {
    // As JavaScript or a command line may call it: the compiler refuses each of these.
    const client = keyed();
    const untyped = client.request.bind(client) as (id: string, args?: unknown) => Promise<unknown>;
    await expect(untyped('getNope')).rejects.toThrow(new TypeError('getNope is not an operation of the API'));
    await expect(untyped('toString')).rejects.toThrow(/toString is not an operation/);
    await expect(untyped('getRound', {})).rejects.toThrow(new TypeError('getRound needs the path parameter id'));
    await expect(untyped('streamLive')).rejects.toThrow(/streamLive answers an event stream/);
    expect(seen).toEqual([]);
  });
});
