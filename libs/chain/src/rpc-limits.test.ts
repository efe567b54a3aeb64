import { budgetOf, parseRpcLimits, SlidingWindow } from './rpc-limits';

describe('parseRpcLimits', () => {
  it('reads per-method budgets and a default', () => {
    const limits = parseRpcLimits('default=100/10s, getProgramAccounts=5/1s,getTransaction=50/1s,getSlot=3/500ms,x=1/2m');
    expect(budgetOf(limits, 'getProgramAccounts')).toEqual({ calls: 5, windowMs: 1000 });
    expect(budgetOf(limits, 'getTransaction')).toEqual({ calls: 50, windowMs: 1000 });
    expect(budgetOf(limits, 'getSlot')).toEqual({ calls: 3, windowMs: 500 });
    expect(budgetOf(limits, 'x')).toEqual({ calls: 1, windowMs: 120_000 });
    expect(budgetOf(limits, 'getBalance')).toEqual({ calls: 100, windowMs: 10_000 });
  });

  it('leaves methods unlimited without a default, and everything with an empty list', () => {
    expect(budgetOf(parseRpcLimits('getTransaction=50/1s'), 'getSlot')).toBeNull();
    expect(budgetOf(parseRpcLimits(''), 'getSlot')).toBeNull();
  });

  it('names the entry it cannot read', () => {
    expect(() => parseRpcLimits('getTransaction=50')).toThrow('"getTransaction=50"');
    expect(() => parseRpcLimits('default=0/1s')).toThrow('allows no call');
    expect(() => parseRpcLimits('get-x=1/1h')).toThrow('get-x=1/1h');
  });
});

describe('SlidingWindow', () => {
  it('grants the budget within a window (plus margin), then says how long until the oldest call leaves', () => {
    const w = new SlidingWindow({ calls: 3, windowMs: 1000 }, 100);
    expect([w.take(1, 0), w.take(1, 10), w.take(1, 20)]).toEqual([0, 0, 0]);
    expect(w.take(1, 500)).toBe(600);
    expect(w.take(1, 1099)).toBe(1);
    expect(w.take(1, 1100)).toBe(0);
    expect(w.inWindow(1100)).toBe(3);
  });

  it('grants several calls at once only when all fit, waiting for as many to leave', () => {
    const w = new SlidingWindow({ calls: 4, windowMs: 1000 }, 0);
    expect(w.take(3, 0)).toBe(0);
    expect(w.take(1, 200)).toBe(0);
    expect(w.take(2, 300)).toBe(700); // two must leave: the two oldest left at 1000
    expect(w.take(4, 1200)).toBe(0);
    expect(() => w.take(5, 5000)).toThrow('exceed');
  });

  it('never grants more than the budget in any window, whatever the request pattern', () => {
    const w = new SlidingWindow({ calls: 7, windowMs: 100 }, 0);
    const granted: number[] = [];
    let now = 0;
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5000; i++) {
      now += Math.floor(rand() * 20);
      const n = 1 + Math.floor(rand() * 3);
      if (w.take(n, now) === 0) for (let k = 0; k < n; k++) granted.push(now);
    }
    for (let i = 0; i < granted.length; i++) {
      const inWindow = granted.filter((t) => t >= granted[i]! && t < granted[i]! + 100).length;
      expect(inWindow).toBeLessThanOrEqual(7);
    }
  });
});

describe('an overall budget', () => {
  it('is read from all=', () => {
    expect(parseRpcLimits('all=100/10s,default=40/10s')).toMatchObject({ all: { calls: 100, windowMs: 10_000 }, fallback: { calls: 40, windowMs: 10_000 } });
    expect(parseRpcLimits('default=40/10s').all).toBeNull();
  });
});
