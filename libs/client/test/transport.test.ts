/**
 * The client's HTTP behaviour against a real HTTP server whose answers the test scripts:
 * problem+json errors, Retry-After retries (bounded, opt-out), RateLimit headers,
 * timeouts and AbortSignal.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GridlabApiError, GridlabClient, GridlabTimeoutError } from '../src/index';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let baseUrl: string;
let handler: Handler;
const seen: Array<{ url: string; at: number; auth: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', at: Date.now(), auth: req.headers.authorization });
    handler(req, res);
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
});

const problem = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ type: 'about:blank', title: code, status, code, detail: `detail of ${code}`, errors: [{ path: '/query/limit', message: 'too big' }] }));
};
const ok = (res: ServerResponse, body: unknown): void => {
  res.writeHead(200, { 'content-type': 'application/json', 'ratelimit-limit': '20', 'ratelimit-remaining': '19', 'ratelimit-reset': '1' });
  res.end(JSON.stringify(body));
};

describe('GridlabClient over HTTP', () => {
  it('sends the key and query, and exposes the RateLimit headers', async () => {
    handler = (_req, res) => ok(res, { count: 0, rounds: [] });
    const seenLimits: unknown[] = [];
    const client = new GridlabClient({ baseUrl, apiKey: 'grid_k', onRateLimit: (r) => seenLimits.push(r) });
    await expect(client.rounds({ limit: 5 })).resolves.toEqual({ count: 0, rounds: [] });
    expect(seen[0]).toMatchObject({ url: '/api/v1/rounds?limit=5', auth: 'Bearer grid_k' });
    expect(client.rateLimit).toEqual({ limit: 20, remaining: 19, reset: 1 });
    expect(seenLimits).toEqual([{ limit: 20, remaining: 19, reset: 1 }]);
  });

  it('turns problem+json into a GridlabApiError with status, code and errors', async () => {
    handler = (_req, res) => problem(res, 400, 'invalid_request');
    const error = await new GridlabClient({ baseUrl }).rounds({ limit: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GridlabApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', retryable: false, errors: [{ path: '/query/limit', message: 'too big' }] });
    expect(seen).toHaveLength(1);
  });

  it('retries 429 and 503 after Retry-After, then succeeds', async () => {
    let calls = 0;
    handler = (_req, res) => {
      calls++;
      if (calls === 1) return problem(res, 429, 'rate_limited', { 'retry-after': '1' });
      if (calls === 2) return problem(res, 503, 'service_unavailable', { 'retry-after': '1' });
      ok(res, { roundsIndexed: 1 });
    };
    await expect(new GridlabClient({ baseUrl }).stats()).resolves.toEqual({ roundsIndexed: 1 });
    expect(seen).toHaveLength(3);
    // Each retry waited for its Retry-After (a lower bound, whatever the machine's speed).
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(990);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(990);
  });

  it('bounds the retries, and does not retry when told not to or when Retry-After is too long', async () => {
    handler = (_req, res) => problem(res, 429, 'rate_limited', { 'retry-after': '0' });
    await expect(new GridlabClient({ baseUrl, retry: { retries: 2 } }).stats()).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryable: true });
    expect(seen).toHaveLength(3);
    seen.length = 0;
    await expect(new GridlabClient({ baseUrl }).stats({ retry: false })).rejects.toMatchObject({ status: 429 });
    expect(seen).toHaveLength(1);
    seen.length = 0;
    handler = (_req, res) => problem(res, 503, 'service_unavailable', { 'retry-after': '120' });
    await expect(new GridlabClient({ baseUrl }).stats()).rejects.toMatchObject({ status: 503, retryAfterMs: 120_000 });
    expect(seen).toHaveLength(1);
  });

  it('times out an attempt that gets no answer, and stops at once on abort (also while waiting to retry)', async () => {
    handler = () => undefined; // never answers
    await expect(new GridlabClient({ baseUrl, timeoutMs: 200 }).live()).rejects.toBeInstanceOf(GridlabTimeoutError);
    const controller = new AbortController();
    const pending = new GridlabClient({ baseUrl }).live({ signal: controller.signal });
    controller.abort(new Error('user gave up'));
    await expect(pending).rejects.toThrow('user gave up');

    handler = (_req, res) => problem(res, 429, 'rate_limited', { 'retry-after': '20' });
    const waiting = new AbortController();
    const retrying = new GridlabClient({ baseUrl }).stats({ signal: waiting.signal });
    while (seen.filter((s) => s.url === '/api/v1/stats').length === 0) await new Promise((r) => setTimeout(r, 10));
    waiting.abort(new Error('stop waiting'));
    await expect(retrying).rejects.toThrow('stop waiting');
  });
});
