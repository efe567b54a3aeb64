/**
 * Request budgets of an RPC provider, per method: `default=100/10s,getProgramAccounts=5/1s`
 * (paid plans name theirs). A method not named takes the `default` budget; with no
 * `default`, it is unlimited. `all=` is a budget every call counts against besides its
 * method's (the public mainnet endpoint allows 100 calls per 10 s in all and 40 per
 * method: `all=100/10s,default=40/10s`). Every item of a batch request counts as one
 * call, as providers count them.
 */
export interface Budget {
  readonly calls: number;
  readonly windowMs: number;
}

export interface RpcLimits {
  readonly byMethod: ReadonlyMap<string, Budget>;
  readonly fallback: Budget | null;
  /** Every call, whatever its method. */
  readonly all: Budget | null;
}

export const NO_LIMITS: RpcLimits = { byMethod: new Map(), fallback: null, all: null };

/** The public mainnet endpoint's limits per IP (100 calls per 10 s in all, 40 per method): safe anywhere. */
export const PUBLIC_MAINNET_LIMITS = 'all=100/10s,default=40/10s';

/** The RPC_LIMITS setting: a budget list, or `none` for a node without limits (the local devnet). */
export function parseRpcLimitsSetting(raw: string): RpcLimits {
  return raw.trim() === 'none' ? NO_LIMITS : parseRpcLimits(raw);
}

/** Calls a second `method` may make at most under `limits` (Infinity: unlimited). */
export function callsPerSecond(limits: RpcLimits, method: string): number {
  const rate = (b: Budget | null): number => (b === null ? Infinity : (b.calls * 1000) / b.windowMs);
  return Math.min(rate(budgetOf(limits, method)), rate(limits.all));
}

const ENTRY_RE = /^([A-Za-z_][A-Za-z0-9_]*)=(\d+)\/(\d+(?:\.\d+)?)(ms|s|m)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;

/** Parses a budget list; throws a RangeError naming the first bad entry. An empty string: no limits. */
export function parseRpcLimits(spec: string): RpcLimits {
  const byMethod = new Map<string, Budget>();
  let fallback: Budget | null = null;
  let all: Budget | null = null;
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const m = ENTRY_RE.exec(entry);
    if (m === null) throw new RangeError(`"${entry}" is not <method>=<calls>/<window> (for example getTransaction=50/1s)`);
    const calls = Number(m[2]);
    const windowMs = Number(m[3]) * UNIT_MS[m[4] as keyof typeof UNIT_MS];
    if (calls < 1 || windowMs <= 0) throw new RangeError(`"${entry}" allows no call`);
    if (m[1] === 'default') fallback = { calls, windowMs };
    else if (m[1] === 'all') all = { calls, windowMs };
    else byMethod.set(m[1]!, { calls, windowMs });
  }
  return { byMethod, fallback, all };
}

/** The budget a method's calls count against, or null when unlimited. */
export function budgetOf(limits: RpcLimits, method: string): Budget | null {
  return limits.byMethod.get(method) ?? limits.fallback;
}

/**
 * A sliding window of calls: at most `budget.calls` within any `budget.windowMs +
 * marginMs`. The margin absorbs the difference between when a call leaves here and when
 * the provider counts it, so the provider never sees a window over budget. Pure: the
 * caller gives the time.
 */
export class SlidingWindow {
  /** Times of the calls granted in the last window, oldest first (a ring). */
  private readonly times: Float64Array;
  private head = 0;
  private size = 0;
  private readonly spanMs: number;

  constructor(
    readonly budget: Budget,
    marginMs: number,
  ) {
    this.times = new Float64Array(budget.calls);
    this.spanMs = budget.windowMs + marginMs;
  }

  /**
   * Takes `n` calls (at most the budget) at `nowMs` when the window has room for them
   * and returns 0; otherwise takes nothing and returns how long to wait before asking again.
   */
  take(n: number, nowMs: number): number {
    const wait = this.wait(n, nowMs);
    if (wait === 0) this.record(n, nowMs);
    return wait;
  }

  /** 0 when `n` calls fit at `nowMs`, else how long until they would (takes nothing). */
  wait(n: number, nowMs: number): number {
    if (n > this.budget.calls) throw new RangeError(`${n} calls exceed the budget of ${this.budget.calls}`);
    while (this.size > 0 && nowMs - this.times[this.head]! >= this.spanMs) {
      this.head = (this.head + 1) % this.times.length;
      this.size--;
    }
    const room = this.budget.calls - this.size;
    if (room >= n) return 0;
    // The (n - room)-th oldest call must leave the window first.
    const leaving = this.times[(this.head + (n - room) - 1) % this.times.length]!;
    return Math.max(1, leaving + this.spanMs - nowMs);
  }

  /** Records `n` calls at `nowMs` (after `wait` said they fit). */
  record(n: number, nowMs: number): void {
    for (let i = 0; i < n; i++) {
      this.times[(this.head + this.size) % this.times.length] = nowMs;
      this.size++;
    }
  }

  /** Calls within the window now. */
  inWindow(nowMs: number): number {
    let n = 0;
    for (let i = 0; i < this.size; i++) if (nowMs - this.times[(this.head + i) % this.times.length]! < this.spanMs) n++;
    return n;
  }
}
