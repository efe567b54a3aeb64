/**
 * Per-method request budgets, as RPC providers enforce them (`getProgramAccounts` is
 * usually the most limited): `default=100/10s,getProgramAccounts=5/1s` allows each method
 * not named 100 requests in any 10 s, and getProgramAccounts 5 in any second. A sliding
 * window over the times of the last requests served: whatever window of that length one
 * looks at, it never holds more than the budget. Each item of a batch counts.
 */

export interface Budget {
  readonly requests: number;
  readonly windowMs: number;
}

export interface RpcLimits {
  /** For every method not named; null: unlimited. */
  readonly fallback: Budget | null;
  readonly methods: ReadonlyMap<string, Budget>;
}

export const NO_LIMITS: RpcLimits = { fallback: null, methods: new Map() };

/** Counters of one method. */
export interface MethodStats {
  readonly served: number;
  readonly refused: number;
  /** The most requests served within any window of the method's budget (null: no budget). */
  readonly maxServedInWindow: number | null;
  readonly budget: Budget | null;
}

export type BudgetDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterS: number };

const ITEM = /^([A-Za-z_][A-Za-z0-9_]*)=(\d+)\/(\d+)(ms|s|m)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;

/** Parses `name=N/<window>` items (window in ms, s or m); throws an Error saying what is wrong. */
export function parseRpcLimits(text: string): RpcLimits {
  let fallback: Budget | null = null;
  const methods = new Map<string, Budget>();
  for (const item of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = ITEM.exec(item);
    if (m === null) throw new Error(`"${item}" is not method=requests/window (e.g. getTransaction=50/1s)`);
    const [, name, requests, amount, unit] = m;
    const budget = { requests: Number(requests), windowMs: Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS] };
    if (budget.requests < 1 || budget.windowMs < 1) throw new Error(`"${item}" must allow at least 1 request in a window of at least 1 ms`);
    if (name === 'default') fallback = budget;
    else methods.set(name!, budget);
  }
  return { fallback, methods };
}

interface MethodState {
  readonly budget: Budget | null;
  /** Times of the last `budget.requests` requests served, a ring starting at `head`. */
  readonly times: Float64Array;
  head: number;
  size: number;
  served: number;
  refused: number;
  maxInWindow: number;
}

export class RpcBudgets {
  private readonly states = new Map<string, MethodState>();

  constructor(
    private readonly limits: RpcLimits,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  /** Counts a request of `method`; refuses it when the window already holds the budget. */
  take(method: string): BudgetDecision {
    const s = this.state(method);
    const budget = s.budget;
    if (budget === null) {
      s.served++;
      return { ok: true };
    }
    const now = this.nowMs();
    const cap = budget.requests;
    if (s.size === cap) {
      const oldest = s.times[s.head]!;
      if (oldest + budget.windowMs > now) {
        s.refused++;
        return { ok: false, retryAfterS: Math.max(1, Math.ceil((oldest + budget.windowMs - now) / 1000)) };
      }
      s.times[s.head] = now;
      s.head = (s.head + 1) % cap;
    } else {
      s.times[(s.head + s.size) % cap] = now;
      s.size++;
    }
    s.served++;
    s.maxInWindow = Math.max(s.maxInWindow, this.inWindow(s, budget, now));
    return { ok: true };
  }

  /** Counters per method that has had a request. */
  stats(): Record<string, MethodStats> {
    const out: Record<string, MethodStats> = {};
    for (const [method, s] of [...this.states].sort(([a], [b]) => a.localeCompare(b))) {
      out[method] = { served: s.served, refused: s.refused, maxServedInWindow: s.budget === null ? null : s.maxInWindow, budget: s.budget };
    }
    return out;
  }

  /** Requests served in (now - window, now]: the ring is in time order, so a binary search finds the first. */
  private inWindow(s: MethodState, budget: Budget, now: number): number {
    let lo = 0;
    let hi = s.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s.times[(s.head + mid) % budget.requests]! > now - budget.windowMs) hi = mid;
      else lo = mid + 1;
    }
    return s.size - lo;
  }

  private state(method: string): MethodState {
    let s = this.states.get(method);
    if (s === undefined) {
      const budget = this.limits.methods.get(method) ?? this.limits.fallback;
      s = { budget, times: new Float64Array(budget?.requests ?? 0), head: 0, size: 0, served: 0, refused: 0, maxInWindow: 0 };
      this.states.set(method, s);
    }
    return s;
  }
}
