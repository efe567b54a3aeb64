import { advisory, readinessOf } from './ops-server';

describe('readinessOf', () => {
  it('is ready only when every required check passes', async () => {
    const report = await readinessOf({ a: async () => ({ n: 1 }), b: async () => Promise.reject(new Error('down')) })();
    expect(report).toEqual({ ready: false, status: 'unready', checks: { a: { ok: true, n: 1 }, b: { ok: false, error: 'down' } } });
  });

  it('reports a failing advisory check as degraded without making the service unready', async () => {
    const report = await readinessOf({ a: async () => undefined, feed: advisory(async () => Promise.reject(new Error('stale'))) })();
    expect(report).toEqual({ ready: true, status: 'degraded', degraded: ['feed'], checks: { a: { ok: true }, feed: { ok: false, advisory: true, error: 'stale' } } });
    const fine = await readinessOf({ feed: advisory(async () => ({ age: 1 })) })();
    expect(fine).toEqual({ ready: true, status: 'ok', checks: { feed: { ok: true, age: 1 } } });
  });

  it('reports a failing optional dependency as degraded, still ready', async () => {
    const report = await readinessOf({ db: async () => undefined, redis: async () => Promise.reject(new Error('down')) }, ['redis'])();
    expect(report).toEqual({ ready: true, status: 'degraded', degraded: ['redis'], checks: { db: { ok: true }, redis: { ok: false, error: 'down' } } });
    const both = await readinessOf({ db: async () => Promise.reject(new Error('gone')), redis: async () => Promise.reject(new Error('down')) }, ['redis'])();
    expect([both.ready, both.status]).toEqual([false, 'unready']);
  });
});
