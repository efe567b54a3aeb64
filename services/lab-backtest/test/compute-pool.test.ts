import { createLogger } from '@gridlab/logger';
import { analyze, normalizeDsl } from '@gridlab/strategy';
import { syntheticRounds } from '@gridlab/testing';
import { ComputePool } from '../src/adapters/workers/compute-pool';
import { analyticsReply, type ComputeJob } from '../src/app/compute';
import { SharedHistory } from '../src/domain/shared-history';

const ROUNDS = 60_000;
const dsl = normalizeDsl({ base_strategy: 'hot', params: { num_squares: 3, bet_size_lamports: 10_000_000, hit_rate_lookback: 100 } });
/** The shares of one analytics call over the whole history. */
const shares = (of: number): ComputeJob[] => Array.from({ length: of }, (_, index) => ({ kind: 'analytics', dsl, toRoundId: ROUNDS, share: { index, of } }));
const decode = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));

function sharedHistory(): SharedHistory {
  const history = new SharedHistory(ROUNDS);
  for (const round of syntheticRounds(ROUNDS, { seed: 3, payoutRule: (i) => (i < ROUNDS / 2 ? 'parimutuel' : 'returns') })) history.append(round);
  return history;
}

describe('ComputePool with one worker', () => {
  const history = sharedHistory();
  let pool: ComputePool;
  const abandoned: string[] = [];
  beforeAll(() => {
    pool = new ComputePool(
      {
        size: 1,
        maxQueue: 10,
        queueWaitMs: 60_000,
        history: () => ({ buffers: history.buffersNow, length: history.length }),
        abandoned: (kind, where) => abandoned.push(`${kind}:${where}`),
      },
      createLogger({ service: 'test', silent: true }),
    );
    pool.start();
  });
  afterAll(() => pool.stop());

  it('runs another client\'s backtest inside a running analytics call instead of after it', async () => {
    const done: string[] = [];
    // Warm the worker (module load, derived rankings) so the timing below is the jobs' own.
    await pool.run({ kind: 'backtest', dsl, window: {} }, { client: 'warm' });
    const analytics = pool.run(shares(1)[0]!, { client: 'heavy' }).then((bytes) => {
      done.push('analytics');
      return bytes;
    });
    // Queued while the analytics call runs: the worker takes it at the call's next yield point.
    await new Promise((r) => setTimeout(r, 20));
    const backtest = pool.run({ kind: 'backtest', dsl, window: {} }, { client: 'calm' }).then((bytes) => {
      done.push('backtest');
      return bytes;
    });
    const [a, b] = await Promise.all([analytics, backtest]);
    expect(done).toEqual(['backtest', 'analytics']);
    // Both answers are whole and correct: nesting left the analytics call's history as it was.
    const parsed = JSON.parse(new TextDecoder().decode(b)) as { ok: boolean; result: { totalRounds: number } };
    expect(parsed.ok).toBe(true);
    expect(parsed.result.totalRounds).toBeGreaterThan(50_000);
    const alone = decode(await pool.run(shares(1)[0]!, { client: 'heavy' }));
    expect(decode(a)).toEqual(alone);
  });

  it('nests nothing of the same client: its second job waits its turn', async () => {
    const done: string[] = [];
    const analytics = pool.run(shares(1)[0]!, { client: 'same' }).then(() => done.push('analytics'));
    await new Promise((r) => setTimeout(r, 20));
    const backtest = pool.run({ kind: 'backtest', dsl, window: {} }, { client: 'same' }).then(() => done.push('backtest'));
    await Promise.all([analytics, backtest]);
    expect(done).toEqual(['analytics', 'backtest']);
  });

  it('stops a running job whose caller has given up, and the replaced worker serves the next one', async () => {
    const started = Date.now();
    await expect(pool.run(shares(1)[0]!, { client: 'impatient', deadlineMs: started + 40 })).rejects.toMatchObject({ code: 'timeout' });
    expect(abandoned).toContain('analytics:running');
    const bytes = await pool.run({ kind: 'backtest', dsl, window: {} }, { client: 'next' });
    expect((JSON.parse(new TextDecoder().decode(bytes)) as { ok: boolean }).ok).toBe(true);
  });
});

describe('ComputePool with two workers', () => {
  const history = sharedHistory();
  let pool: ComputePool;
  beforeAll(() => {
    pool = new ComputePool({ size: 2, maxQueue: 10, queueWaitMs: 60_000, history: () => ({ buffers: history.buffersNow, length: history.length }) }, createLogger({ service: 'test', silent: true }));
    pool.start();
  });
  afterAll(() => pool.stop());

  it("runs an analytics call's shares side by side, though a client runs one call at a time, and they merge into the whole call", async () => {
    const call = pool.runAll(shares(2), { client: 'one' });
    // Both shares are on a worker at once: they are one call against the client's cap of one.
    expect(pool.queued).toBe(0);
    // A second call of the same client waits for the first.
    const next = pool.run({ kind: 'backtest', dsl, window: {} }, { client: 'one' });
    expect(pool.queued).toBe(1);
    const merged = decode(analyticsReply(dsl, await call));
    expect(merged).toEqual(decode(new TextEncoder().encode(JSON.stringify({ ok: true, result: analyze(history.history, dsl) }))));
    expect((decode(await next) as { ok: boolean }).ok).toBe(true);
  });

  it("refuses a whole call when the queue cannot take all its jobs", async () => {
    const small = new ComputePool({ size: 1, maxQueue: 2, queueWaitMs: 60_000, history: () => ({ buffers: history.buffersNow, length: history.length }) }, createLogger({ service: 'test', silent: true }));
    small.start();
    try {
      const running = small.runAll(shares(2));
      // One share runs, one waits: a call of two more would make three waiting.
      await expect(small.runAll(shares(2))).rejects.toMatchObject({ kind: 'unavailable' });
      expect(small.queued).toBe(1);
      await running;
    } finally {
      await small.stop();
    }
  });
});
