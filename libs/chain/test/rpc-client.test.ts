/**
 * The RPC client against a provider that refuses as real ones do (HTTP 429 with
 * Retry-After, JSON-RPC -32029 in batches), over real HTTP on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainError } from '@gridlab/errors';
import { parseRpcLimits, SolanaRpc, type RpcOutcome } from '../src';

interface Call {
  readonly method: string;
  readonly at: number;
  readonly params: unknown[];
}

/** A provider: per-method budgets (fixed calls per window), optional refusals and delays; records what it served. */
class Provider {
  readonly served: Call[] = [];
  refused = 0;
  inFlight = 0;
  maxInFlight = 0;
  /** Refuse the next n HTTP requests with 429 and this Retry-After. */
  refuseNext: { count: number; retryAfter: string } = { count: 0, retryAfter: '1' };
  /** Answer these batch items (by param) with -32029 once. */
  readonly throttleOnce = new Set<string>();
  delayMs = 0;
  /** The Authorization header of each request, in order. */
  readonly authorizations: (string | undefined)[] = [];
  private server!: Server;
  url = '';

  constructor(private readonly budgets: Record<string, { calls: number; windowMs: number }>) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      // A provider counts a call when its request arrives.
      const arrived = Date.now();
      this.authorizations.push(req.headers.authorization);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => void (async () => {
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
        this.inFlight--;
        if (this.refuseNext.count > 0) {
          this.refuseNext.count--;
          res.writeHead(429, { 'retry-after': this.refuseNext.retryAfter, 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32029, message: 'Too many requests' } }));
          return;
        }
        const parsed = JSON.parse(body) as { id: number; method: string; params: unknown[] } | { id: number; method: string; params: unknown[] }[];
        const answer = (r: { id: number; method: string; params: unknown[] }) => {
          const now = arrived;
          const budget = this.budgets[r.method];
          const key = JSON.stringify(r.params[0]);
          if (this.throttleOnce.delete(key) || (budget !== undefined && this.served.filter((c) => c.method === r.method && c.at > now - budget.windowMs).length >= budget.calls)) {
            this.refused++;
            return { jsonrpc: '2.0', id: r.id, error: { code: -32029, message: 'Too many requests for a specific RPC call' } };
          }
          this.served.push({ method: r.method, at: now, params: r.params });
          if (r.method === 'fail') return { jsonrpc: '2.0', id: r.id, error: { code: -32602, message: 'Invalid params' } };
          return { jsonrpc: '2.0', id: r.id, result: { echo: r.params[0] } };
        };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
      })());
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The most calls of `method` it served within any window of `windowMs`. */
  mostInWindow(method: string, windowMs: number): number {
    const times = this.served.filter((c) => c.method === method).map((c) => c.at);
    let most = 0;
    for (const t of times) most = Math.max(most, times.filter((u) => u >= t && u < t + windowMs).length);
    return most;
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

const providers: Provider[] = [];
async function provider(budgets: Record<string, { calls: number; windowMs: number }> = {}): Promise<Provider> {
  const p = new Provider(budgets);
  await p.start();
  providers.push(p);
  return p;
}
afterAll(() => Promise.all(providers.map((p) => p.stop())));

describe('SolanaRpc within a provider\'s limits', () => {
  // The provider shares this process: a stall here holds back requests the client had
  // spaced, and they then arrive together. A margin wider than such a stall keeps the
  // check about the client's spacing rather than the machine's load.
  const margin = { limitMarginMs: 1000 };

  it('stays within every budget however much is asked at once, batching where allowed, answers in order', async () => {
    const p = await provider({ getTransaction: { calls: 40, windowMs: 500 }, getSlot: { calls: 5, windowMs: 500 } });
    const outcomes: RpcOutcome[] = [];
    const rpc = new SolanaRpc(p.url, { limits: parseRpcLimits('getTransaction=40/500ms,default=5/500ms'), batchMax: 100, ...margin, observe: (_m, o) => outcomes.push(o) });
    const [txs, slots] = await Promise.all([
      rpc.batch<{ echo: string }>('getTransaction', Array.from({ length: 130 }, (_, i) => [`sig${i}`])),
      Promise.all(Array.from({ length: 12 }, (_, i) => rpc.call<{ echo: number }>('getSlot', [i]))),
    ]);
    expect(txs.map((t) => t.echo)).toEqual(Array.from({ length: 130 }, (_, i) => `sig${i}`));
    expect(slots.map((s) => s.echo)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(p.refused).toBe(0);
    expect(p.mostInWindow('getTransaction', 500)).toBeLessThanOrEqual(40);
    expect(p.mostInWindow('getSlot', 500)).toBeLessThanOrEqual(5);
    // Batches of at most the budget: 40, 40, 40, 10.
    expect(outcomes.filter((o) => o === 'ok').length).toBe(4 + 12);
  });

  it('keeps every call within an overall budget too', async () => {
    const p = await provider({ getTransaction: { calls: 1000, windowMs: 500 } });
    const rpc = new SolanaRpc(p.url, { limits: parseRpcLimits('all=20/500ms'), ...margin });
    await Promise.all([rpc.batch('getTransaction', Array.from({ length: 50 }, (_, i) => [i])), ...Array.from({ length: 10 }, () => rpc.call('getSlot', []))]);
    const times = p.served.map((c) => c.at);
    const most = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 500).length));
    expect(most).toBeLessThanOrEqual(20);
    expect(p.refused).toBe(0);
  });

  it('waits out a 429 for as long as Retry-After says, then succeeds', async () => {
    const p = await provider();
    p.refuseNext = { count: 1, retryAfter: '1' };
    const outcomes: RpcOutcome[] = [];
    const rpc = new SolanaRpc(p.url, { observe: (_m, o) => outcomes.push(o) });
    const started = Date.now();
    expect(await rpc.call('getSlot', [1])).toEqual({ echo: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(outcomes).toEqual(['rate_limited', 'ok']);
  });

  it('asks again for the batch items refused with -32029, keeping the others', async () => {
    const p = await provider();
    p.throttleOnce.add(JSON.stringify('b'));
    p.throttleOnce.add(JSON.stringify('d'));
    const rpc = new SolanaRpc(p.url, { batchMax: 10 });
    const results = await rpc.batch<{ echo: string }>('getTransaction', [['a'], ['b'], ['c'], ['d']]);
    expect(results.map((r) => r.echo)).toEqual(['a', 'b', 'c', 'd']);
    expect(p.served.filter((c) => c.method === 'getTransaction').map((c) => c.params[0])).toEqual(['a', 'c', 'b', 'd']);
  });

  it('gives up after its retries when the provider keeps refusing, with a retryable ChainError', async () => {
    const p = await provider();
    p.refuseNext = { count: 100, retryAfter: '0' };
    const rpc = new SolanaRpc(p.url, { rateLimitedRetries: 2 });
    await expect(rpc.call('getSlot', [])).rejects.toThrow(new ChainError('getSlot: the RPC provider kept refusing for rate (3 attempts)'));
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const p = await provider();
    p.delayMs = 50;
    const rpc = new SolanaRpc(p.url, { concurrency: 3, batchMax: 1 });
    await rpc.batch('getTransaction', Array.from({ length: 12 }, (_, i) => [i]));
    expect(p.maxInFlight).toBe(3);
  });

  it('fails on an RPC error that is not about rate, without retrying it', async () => {
    const p = await provider();
    const rpc = new SolanaRpc(p.url);
    await expect(rpc.call('fail', [])).rejects.toThrow('fail: RPC error -32602 Invalid params');
    await expect(rpc.batch('fail', [[1], [2]])).rejects.toThrow('RPC error -32602');
    expect(p.served.filter((c) => c.method === 'fail')).toHaveLength(3);
  });

  it('calls a provider that authenticates with the URL\'s user info, as Basic authorization (fetch refuses such a URL)', async () => {
    const p = await provider();
    const withCredentials = p.url.replace('http://', 'http://alice:s%40cret@');
    const rpc = new SolanaRpc(withCredentials);
    await expect(rpc.call('echo', ['hi'])).resolves.toEqual({ echo: 'hi' });
    expect(p.authorizations.at(-1)).toBe(`Basic ${Buffer.from('alice:s@cret').toString('base64')}`);
  });

  it('stops waiting for budget when closed', async () => {
    const p = await provider();
    const rpc = new SolanaRpc(p.url, { limits: parseRpcLimits('getSlot=1/10s') });
    await rpc.call('getSlot', []);
    const waiting = rpc.call('getSlot', []);
    rpc.close();
    await expect(waiting).rejects.toThrow('closed');
  });
});
