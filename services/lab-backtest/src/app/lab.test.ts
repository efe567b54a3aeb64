import { InputError } from '@gridlab/errors';
import { History, PAYOUT_REVISION, dslHash, normalizeDsl } from '@gridlab/strategy';
import { syntheticRounds } from '@gridlab/testing';
import { computeReply, type ComputeJob } from './compute';
import { Lab, analyticsCacheKey } from './lab';
import type { AnalyticsCachePort, ComputePort } from './ports';

const DSL = { base_strategy: 'cold', params: { bet_size_lamports: 1_000_000 } };

/** Computes on the calling thread, each call when released; records the jobs it was given. */
class FakeCompute implements ComputePort {
  readonly jobs: ComputeJob[] = [];
  readonly calls: ComputeJob[][] = [];
  release: (() => void) | undefined;
  constructor(private readonly history: History) {}
  async run(job: ComputeJob): Promise<Uint8Array> {
    return (await this.runAll([job]))[0]!;
  }
  async runAll(jobs: readonly ComputeJob[]): Promise<Uint8Array[]> {
    this.jobs.push(...jobs);
    this.calls.push([...jobs]);
    await new Promise<void>((resolve) => (this.release = resolve));
    return jobs.map((job) => computeReply(this.history, job));
  }
}

class MapCache implements AnalyticsCachePort {
  readonly entries = new Map<string, Uint8Array>();
  async get(key: string): Promise<Uint8Array | null> {
    return this.entries.get(key) ?? null;
  }
  async set(key: string, bytes: Uint8Array): Promise<void> {
    this.entries.set(key, bytes);
  }
}

async function failure(promise: Promise<unknown>): Promise<InputError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}

describe('the lab use cases', () => {
  const history = History.from(syntheticRounds(1000, { seed: 5, firstId: 250 }));
  const setup = () => {
    const compute = new FakeCompute(history);
    const cache = new MapCache();
    return { compute, cache, lab: new Lab(() => history, compute, cache) };
  };

  it('refuses a bad DSL with every JSON path under /dsl, without taking a worker', async () => {
    const { compute, lab } = setup();
    const error = await failure(lab.backtest({ dsl: { base_strategy: 'cold', params: { num_squares: 'five' }, extra: 1 } }));
    expect(error.errors).toEqual(
      expect.arrayContaining([
        { path: '/dsl/extra', message: 'is not an accepted property' },
        { path: '/dsl/params/bet_size_lamports', message: 'is required' },
        expect.objectContaining({ path: '/dsl/params/num_squares' }),
      ]),
    );
    expect(compute.jobs).toEqual([]);
  });

  it('refuses windows it cannot serve, naming the problem', async () => {
    const { compute, lab } = setup();
    expect((await failure(lab.backtest({ dsl: DSL, fromRoundId: 900, toRoundId: 800 }))).errors![0]!.path).toBe('/fromRoundId');
    expect((await failure(lab.backtest({ dsl: DSL, fromRoundId: 5000 }))).errors![0]!.message).toMatch(/no stored round/);
    const [round] = syntheticRounds(1);
    const long = new History(200_001);
    for (let id = 1; id <= 200_001; id++) long.append({ ...round!, id });
    const wide = new Lab(() => long, compute, new MapCache());
    expect((await failure(wide.backtest({ dsl: DSL, fromRoundId: 1 }))).errors![0]!.message).toMatch(/more than 200000/);
    expect(compute.jobs).toEqual([]);
  });

  it('hands the normalized DSL and the window to a worker', async () => {
    const { compute, lab } = setup();
    const reply = lab.backtest({ dsl: DSL, toRoundId: 900 });
    await new Promise((r) => setImmediate(r));
    compute.release!();
    expect(await reply).toEqual({ bytes: expect.any(Uint8Array), cached: false });
    expect(compute.jobs).toEqual([{ kind: 'backtest', dsl: normalizeDsl(DSL), window: { toRoundId: 900 } }]);
  });

  it('computes analytics once for concurrent identical requests, then serves them from the cache', async () => {
    const { compute, cache, lab } = setup();
    const first = lab.analytics({ dsl: DSL });
    // The same strategy written differently normalizes to the same DSL.
    const second = lab.analytics({ dsl: { ...DSL, params: { ...DSL.params, sizing_mode: 'flat' }, filters: [] } });
    await new Promise((r) => setImmediate(r));
    compute.release!();
    const [a, b] = await Promise.all([first, second]);
    expect(compute.jobs).toHaveLength(1);
    expect([a.cached, b.cached]).toEqual([false, false]);
    expect(b.bytes).toBe(a.bytes);
    const key = analyticsCacheKey(dslHash(normalizeDsl(DSL)), history.lastId!);
    expect([...cache.entries.keys()]).toEqual([key]);
    expect(await lab.analytics({ dsl: DSL })).toEqual({ bytes: a.bytes, cached: true });
    expect(compute.jobs).toHaveLength(1);
  });

  it('splits an analytics call into a share per worker, all ending at the round its cache key names, into the same answer', async () => {
    const answer = async (of: number): Promise<{ bytes: Uint8Array; jobs: ComputeJob[][] }> => {
      const compute = new FakeCompute(history);
      const reply = new Lab(() => history, compute, new MapCache(), of).analytics({ dsl: DSL });
      await new Promise((r) => setImmediate(r));
      compute.release!();
      return { bytes: (await reply).bytes, jobs: compute.calls };
    };
    const whole = await answer(1);
    const split = await answer(3);
    expect(split.jobs).toEqual([[0, 1, 2].map((index) => ({ kind: 'analytics', dsl: normalizeDsl(DSL), toRoundId: history.lastId, share: { index, of: 3 } }))]);
    expect(new TextDecoder().decode(split.bytes)).toBe(new TextDecoder().decode(whole.bytes));
    expect(JSON.parse(new TextDecoder().decode(whole.bytes))).toMatchObject({ ok: true, result: { asOfRoundId: history.lastId } });
  });

  it('keys the analytics cache by DSL hash and 100-round bucket of the latest round', () => {
    expect(analyticsCacheKey('ab', 1299)).toBe(`${PAYOUT_REVISION}:ab:12`);
    expect(analyticsCacheKey('ab', 1300)).toBe(`${PAYOUT_REVISION}:ab:13`);
    expect(analyticsCacheKey('ab', 99)).toBe(`${PAYOUT_REVISION}:ab:0`);
    // Results priced by the float parimutuel arithmetic (revision 1) are never read again.
    expect(PAYOUT_REVISION).toBe('p2');
  });
});
