import { rpcEndpoint } from './rpc-endpoint';
import { ChainError } from '@gridlab/errors';
import { parseJsonBytes } from './json-bytes';
import { budgetOf, NO_LIMITS, SlidingWindow, type Budget, type RpcLimits } from './rpc-limits';
import type { TransactionJson } from './transactions';

/** A raw account as JSON-RPC returns it, data decoded. */
export interface RawAccount {
  readonly pubkey: string;
  readonly data: Buffer;
  readonly owner: string;
}

/** One entry of `getSignaturesForAddress`, newest first. */
export interface SignatureInfo {
  readonly signature: string;
  readonly slot: number;
  readonly err: unknown;
  readonly blockTime: number | null;
}

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** How an HTTP request to the RPC ended, for metrics. */
export type RpcOutcome = 'ok' | 'rate_limited' | 'rpc_error' | 'http_error' | 'unreachable';

/** Told of every HTTP request: its method (`batch:<method>` for a batch), outcome, duration and calls in it. */
export type RpcObserver = (method: string, outcome: RpcOutcome, seconds: number, calls: number) => void;

export interface SolanaRpcOptions {
  /** Deadline of one HTTP request (default 10 s). */
  readonly timeoutMs?: number;
  /** The provider's budgets (RPC_LIMITS); calls wait for room rather than be refused. */
  readonly limits?: RpcLimits;
  /** Calls per batch request (RPC_BATCH_MAX); 1 sends each call alone. Default 100. */
  readonly batchMax?: number;
  /** HTTP requests in flight at once (RPC_CONCURRENCY). Default 4. */
  readonly concurrency?: number;
  /** How much wider than the provider's window ours is, for the time a request takes to arrive. Default 250 ms. */
  readonly limitMarginMs?: number;
  /** Times a call refused for rate (HTTP 429, -32029) is tried again before it fails. Default 8. */
  readonly rateLimitedRetries?: number;
  readonly observe?: RpcObserver;
}

interface RpcResponse<T> {
  readonly id?: number;
  readonly result?: T;
  readonly error?: { readonly code: number; readonly message: string };
}

type AccountJson = { data: [string, string]; owner: string } | null;

/** JSON-RPC codes providers answer when a call is over budget. */
const RATE_LIMIT_CODES = new Set([-32029, -32429, 429]);
const MAX_BACKOFF_MS = 30_000;

/** A request the provider refused for rate, with how long it asked us to wait (null: not said). */
class RateLimited extends Error {
  constructor(readonly retryAfterMs: number | null) {
    super('rate limited');
  }
}

/**
 * The Solana JSON-RPC calls services make, over HTTP with a deadline, within a
 * provider's limits: every call waits for room in its method's budget, batches of calls
 * go as one request where the provider allows, at most `concurrency` requests are in
 * flight, and a refusal for rate (HTTP 429 with Retry-After, or JSON-RPC -32029) is waited
 * out and tried again with back-off. Any other transport failure, timeout or RPC error
 * becomes a retryable ChainError.
 */
export class SolanaRpc {
  private nextId = 1;
  private readonly timeoutMs: number;
  private readonly limits: RpcLimits;
  private readonly batchMax: number;
  private readonly concurrency: number;
  private readonly marginMs: number;
  private readonly retries: number;
  private readonly windows = new Map<string, SlidingWindow>();
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly closed = new AbortController();
  private readonly observe: RpcObserver | undefined;

  private readonly url: string;
  /** The request headers: JSON, and the URL's credentials as Basic authorization (see rpcEndpoint). */
  private readonly headers: Record<string, string>;

  constructor(url: string, options: SolanaRpcOptions | number = {}) {
    const endpoint = rpcEndpoint(url);
    this.url = endpoint.url;
    this.headers = { 'content-type': 'application/json', ...endpoint.headers };
    const o = typeof options === 'number' ? { timeoutMs: options } : options;
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.limits = o.limits ?? NO_LIMITS;
    this.batchMax = Math.max(1, o.batchMax ?? 100);
    this.concurrency = Math.max(1, o.concurrency ?? 4);
    this.marginMs = o.limitMarginMs ?? 250;
    this.retries = o.rateLimitedRetries ?? 8;
    this.observe = o.observe;
  }

  /** Ends every wait for budget or back-off (the caller is stopping). */
  close(): void {
    this.closed.abort();
  }

  async call<T>(method: string, params: unknown[], timeoutMs = this.timeoutMs): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const id = this.nextId++;
      try {
        const body = await this.send<RpcResponse<T>>(method, 1, { jsonrpc: '2.0', id, method, params }, timeoutMs);
        if (body.error !== undefined) {
          if (RATE_LIMIT_CODES.has(body.error.code)) throw new RateLimited(null);
          throw new ChainError(`${method}: RPC error ${body.error.code} ${body.error.message}`);
        }
        return body.result as T;
      } catch (error) {
        if (!(error instanceof RateLimited)) throw error;
        await this.backOff(method, attempt, error.retryAfterMs);
      }
    }
  }

  /**
   * The same method with each of `paramsList`, as batch requests of at most the batch
   * size (and the method's budget); results in order. An item refused for rate is asked
   * again; any other item error fails the whole call.
   */
  async batch<T>(method: string, paramsList: readonly unknown[][], timeoutMs = this.timeoutMs): Promise<T[]> {
    const size = this.batchSizeFor(method);
    if (size <= 1) return Promise.all(paramsList.map((params) => this.call<T>(method, params, timeoutMs)));
    const results = new Array<T>(paramsList.length);
    const chunks: number[][] = [];
    for (let i = 0; i < paramsList.length; i += size) chunks.push(Array.from({ length: Math.min(size, paramsList.length - i) }, (_, k) => i + k));
    await Promise.all(chunks.map((chunk) => this.sendChunk(method, chunk, paramsList, results, timeoutMs)));
    return results;
  }

  /** Calls of `method` per batch request: the batch size, or less when the method's budget is smaller. */
  batchSizeFor(method: string): number {
    return Math.min(this.batchMax, budgetOf(this.limits, method)?.calls ?? Infinity, this.limits.all?.calls ?? Infinity);
  }

  private async sendChunk<T>(method: string, indexes: number[], paramsList: readonly unknown[][], results: T[], timeoutMs: number): Promise<void> {
    let pending = indexes;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const ids = new Map<number, number>();
      const body = pending.map((index) => {
        const id = this.nextId++;
        ids.set(id, index);
        return { jsonrpc: '2.0', id, method, params: paramsList[index] };
      });
      let replies: RpcResponse<T>[];
      try {
        replies = await this.send<RpcResponse<T>[]>(method, pending.length, body, timeoutMs);
      } catch (error) {
        if (!(error instanceof RateLimited)) throw error;
        await this.backOff(method, attempt, error.retryAfterMs);
        continue;
      }
      if (!Array.isArray(replies)) throw new ChainError(`${method}: a batch request was not answered with an array`);
      const again: number[] = [];
      const answered = new Set<number>();
      for (const reply of replies) {
        const index = typeof reply?.id === 'number' ? ids.get(reply.id) : undefined;
        if (index === undefined) continue;
        answered.add(index);
        if (reply.error === undefined) results[index] = reply.result as T;
        else if (RATE_LIMIT_CODES.has(reply.error.code)) again.push(index);
        else throw new ChainError(`${method}: RPC error ${reply.error.code} ${reply.error.message}`);
      }
      for (const index of pending) if (!answered.has(index)) throw new ChainError(`${method}: a batch answer lacks a call`);
      if (again.length > 0) await this.backOff(method, attempt, null);
      pending = again;
    }
  }

  /**
   * A request slot once the method's budget has room for `calls`: the budget is taken at
   * the moment the request leaves (a slot held while waiting for budget would stall other
   * methods' requests behind it).
   */
  private async slotWithBudget(method: string, calls: number): Promise<void> {
    const windows = [this.windowOf(method, budgetOf(this.limits, method)), this.windowOf('all', this.limits.all)].filter((w): w is SlidingWindow => w !== null);
    for (;;) {
      await this.slot();
      const now = Date.now();
      const wait = Math.max(0, ...windows.map((w) => w.wait(calls, now)));
      if (wait === 0) {
        for (const w of windows) w.record(calls, now);
        return;
      }
      this.release();
      await this.sleep(wait);
    }
  }

  private windowOf(method: string, budget: Budget | null): SlidingWindow | null {
    if (budget === null) return null;
    const key = method === 'all' ? '*all' : this.limits.byMethod.has(method) ? method : `default:${method}`;
    let window = this.windows.get(key);
    if (window === undefined) this.windows.set(key, (window = new SlidingWindow(budget, this.marginMs)));
    return window;
  }

  private async backOff(method: string, attempt: number, retryAfterMs: number | null): Promise<void> {
    if (attempt >= this.retries) throw new ChainError(`${method}: the RPC provider kept refusing for rate (${attempt + 1} attempts)`);
    const exponential = Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt);
    // Jitter, so replicas refused together do not come back together.
    await this.sleep(Math.max(retryAfterMs ?? 0, exponential * (0.5 + Math.random() / 2)));
  }

  private sleep(ms: number): Promise<void> {
    const signal = this.closed.signal;
    if (signal.aborted) return Promise.reject(new ChainError('the RPC client is closed'));
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
      };
      const abort = (): void => {
        done();
        reject(new ChainError('the RPC client is closed'));
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  /** One HTTP request of `calls` calls of `method` (a batch when `body` is an array), within the concurrency bound and the budget. */
  private async send<T>(method: string, calls: number, body: unknown, timeoutMs: number): Promise<T> {
    await this.slotWithBudget(method, calls);
    const started = performance.now();
    const label = Array.isArray(body) ? `batch:${method}` : method;
    const seen = (outcome: RpcOutcome): void => this.observe?.(label, outcome, (performance.now() - started) / 1000, calls);
    try {
      let response: Response;
      try {
        response = await fetch(this.url, {
          method: 'POST',
          headers: this.headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        seen('unreachable');
        throw new ChainError(`${method}: RPC unreachable`, { cause: error });
      }
      if (response.status === 429) {
        seen('rate_limited');
        await response.arrayBuffer().catch(() => undefined);
        throw new RateLimited(retryAfterMs(response.headers.get('retry-after')));
      }
      if (!response.ok) {
        seen('http_error');
        await response.arrayBuffer().catch(() => undefined);
        throw new ChainError(`${method}: HTTP ${response.status}`);
      }
      let parsed: T;
      try {
        parsed = parseJsonBytes(Buffer.from(await response.arrayBuffer())) as T;
      } catch (error) {
        seen('http_error');
        throw new ChainError(`${method}: malformed RPC response`, { cause: error });
      }
      const error = (parsed as RpcResponse<unknown>).error;
      seen(error === undefined ? 'ok' : RATE_LIMIT_CODES.has(error.code) ? 'rate_limited' : 'rpc_error');
      return parsed;
    } finally {
      this.release();
    }
  }

  private slot(): Promise<void> {
    if (this.inFlight < this.concurrency) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.inFlight--;
  }

  /** The chain's identity: the base58 hash of its genesis block. */
  async getGenesisHash(): Promise<string> {
    return this.call<string>('getGenesisHash', []);
  }

  async getSlot(commitment: Commitment = 'confirmed'): Promise<number> {
    return this.call<number>('getSlot', [{ commitment }]);
  }

  /** Accounts in order (null where missing), with the slot they were read at. */
  async getMultipleAccounts(pubkeys: readonly string[], commitment: Commitment = 'confirmed'): Promise<{ slot: number; accounts: (RawAccount | null)[] }> {
    const result = await this.call<{ context: { slot: number }; value: AccountJson[] }>('getMultipleAccounts', [pubkeys, { encoding: 'base64', commitment }]);
    return {
      slot: result.context.slot,
      accounts: result.value.map((a, i) => (a === null ? null : { pubkey: pubkeys[i]!, data: Buffer.from(a.data[0], 'base64'), owner: a.owner })),
    };
  }

  async getAccount(pubkey: string): Promise<RawAccount | null> {
    return (await this.getMultipleAccounts([pubkey])).accounts[0] ?? null;
  }

  /** Program accounts of one data size whose first byte is `discriminator`. */
  async getProgramAccounts(programId: string, dataSize: number, discriminatorBase58: string): Promise<RawAccount[]> {
    const result = await this.call<{ pubkey: string; account: { data: [string, string]; owner: string } }[]>(
      'getProgramAccounts',
      [
        programId,
        {
          encoding: 'base64',
          commitment: 'confirmed',
          filters: [{ dataSize }, { memcmp: { offset: 0, bytes: discriminatorBase58 } }],
        },
      ],
      60_000,
    );
    return result.map((r) => ({ pubkey: r.pubkey, data: Buffer.from(r.account.data[0], 'base64'), owner: r.account.owner }));
  }

  /** One page of the signatures of transactions that touched `address`, newest first. */
  async getSignaturesForAddress(
    address: string,
    page: { readonly before?: string; readonly until?: string; readonly limit?: number; readonly commitment?: Commitment } = {},
  ): Promise<SignatureInfo[]> {
    const config: Record<string, unknown> = { commitment: page.commitment ?? 'finalized', limit: page.limit ?? 1000 };
    if (page.before !== undefined) config['before'] = page.before;
    if (page.until !== undefined) config['until'] = page.until;
    const result = await this.call<{ signature: string; slot: number; err: unknown; blockTime?: number | null }[]>('getSignaturesForAddress', [address, config]);
    return result.map((s) => ({ signature: s.signature, slot: s.slot, err: s.err ?? null, blockTime: s.blockTime ?? null }));
  }

  /** Transactions by signature (null where the node has none), in batches. */
  async getTransactions(signatures: readonly string[], commitment: Commitment = 'finalized'): Promise<(TransactionJson | null)[]> {
    return this.batch<TransactionJson | null>(
      'getTransaction',
      signatures.map((signature) => [signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment }]),
    );
  }
}

/** Retry-After in milliseconds: whole seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
