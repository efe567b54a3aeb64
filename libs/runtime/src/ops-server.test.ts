import { advisory, readinessOf } from './ops-server';

describe('readinessOf', () => {
  it('is ready only when every required check passes', async () => {
    const report = await readinessOf({ a: async () => ({ n: 1 }), b: async () => Promise.reject(new Error('down')) })();
    expect(report).toEqual({ ready: false, checks: { a: { ok: true, n: 1 }, b: { ok: false, error: 'down' } } });
  });

  it('reports a failing advisory check as degraded without making the service unready', async () => {
    const report = await readinessOf({ a: async () => undefined, feed: advisory(async () => Promise.reject(new Error('stale'))) })();
    expect(report).toEqual({ ready: true, degraded: ['feed'], checks: { a: { ok: true }, feed: { ok: false, advisory: true, error: 'stale' } } });
    const fine = await readinessOf({ feed: advisory(async () => ({ age: 1 })) })();
    expect(fine).toEqual({ ready: true, checks: { feed: { ok: true, age: 1 } } });
  });
});
