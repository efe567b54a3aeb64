import { RoundRepository } from '@gridlab/rounds-store';
import { answersOk, freePort, syntheticRounds, type ServiceProcess } from '@gridlab/testing';
import { startGatewayUnderTest } from './gateway-harness';
import { deployLabBackTest, type DeployedService } from './lab-process';
import { percentile } from './stats';
import type { Bench, BenchFigure } from './types';

const ROUNDS = 50_000;
/** Keys of the well-behaved client (its /live samples are spread over them: 5 req/s per key). */
const CALM_KEYS = 12;
const LIVE_SAMPLES = 500;
const BACKTEST_RUNS = 21;
const TARGET_LIVE_P99_MS = 20;
const TARGET_BACKTEST_RATIO = 2;

/**
 * The abuse figure: one key holds its maximum of everything (5 SSE streams, 1
 * NDJSON dump it never reads, 2 Strategy Lab analytics in flight, restarted as soon as
 * one ends) while another client's GET /live p99 and backtest time are measured, and
 * compared with the same measurements with no abuser. Real gateway and lab-backtest
 * processes (lab-backtest as its image runs it) over 50,000 stored rounds.
 */
const bench: Bench = async () => {
  const gw = await startGatewayUnderTest(1 + CALM_KEYS, { LAB_TIMEOUT_MS: '60000' });
  let lab: ServiceProcess | undefined;
  let deployed: DeployedService | undefined;
  const stopHog = new AbortController();
  try {
    deployed = await deployLabBackTest();
    const repo = new RoundRepository(gw.pool);
    for (let first = 1; first <= ROUNDS; first += 25_000) await repo.insertMany(syntheticRounds(25_000, { seed: first, firstId: first }));
    const opsPort = await freePort();
    lab = await deployed.start(
      { DATABASE_URL: gw.db.url, NATS_PREFIX: gw.ns.natsPrefix, REDIS_PREFIX: gw.ns.redisPrefix, OPS_PORT: String(opsPort), LOG_LEVEL: 'warn' },
      () => answersOk(`http://127.0.0.1:${opsPort}/readyz`),
      120_000,
    );
    const [hog, ...calm] = gw.keys as [string, ...string[]];
    const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

    const liveP99 = async (): Promise<number> => {
      const samples: number[] = [];
      for (let i = 0; i < LIVE_SAMPLES; i++) {
        const key = calm[i % calm.length]!;
        const started = performance.now();
        const res = await fetch(`${gw.url}/api/v1/live`, { headers: auth(key) });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`/live answered ${res.status}`);
        samples.push(performance.now() - started);
        // Stay within each key's 5 requests a second.
        if (i % calm.length === calm.length - 1) await new Promise((r) => setTimeout(r, 200));
      }
      return percentile(samples, 99);
    };
    const backtestMs = async (): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < BACKTEST_RUNS; i++) {
        const started = performance.now();
        const res = await fetch(`${gw.url}/api/v1/lab/backtest`, {
          method: 'POST',
          headers: { ...auth(calm[0]!), 'Content-Type': 'application/json' },
          body: JSON.stringify({ dsl: { base_strategy: 'hot', params: { bet_size_lamports: 1_000_000 + i, num_squares: 3 } } }),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`backtest answered ${res.status}`);
        times.push(performance.now() - started);
      }
      return percentile(times, 50);
    };

    // Warm-up, then the calm client alone.
    await backtestMs();
    const idleLive = await liveP99();
    const idleBacktest = await backtestMs();

    // The abuser takes everything one key may hold.
    const held: AbortController[] = [];
    for (let i = 0; i < 5; i++) {
      const a = new AbortController();
      const res = await fetch(`${gw.url}/api/v1/stream`, { headers: auth(hog), signal: a.signal });
      if (res.status !== 200) throw new Error(`stream ${i} answered ${res.status}`);
      held.push(a);
    }
    const dumpAbort = new AbortController();
    const dump = await fetch(`${gw.url}/api/v1/dump`, { headers: { ...auth(hog), Accept: 'application/x-ndjson' }, signal: dumpAbort.signal });
    if (dump.status !== 200) throw new Error(`dump answered ${dump.status}`);
    held.push(dumpAbort); // never read: it stalls with full buffers
    let hogJobs = 0;
    let variant = 0;
    const hogLoop = async (): Promise<void> => {
      while (!stopHog.signal.aborted) {
        const res = await fetch(`${gw.url}/api/v1/lab/analytics`, {
          method: 'POST',
          headers: { ...auth(hog), 'Content-Type': 'application/json' },
          body: JSON.stringify({ dsl: { base_strategy: 'cold', params: { bet_size_lamports: 2_000_000 + variant++, num_squares: 1 + (variant % 5) } } }),
          signal: stopHog.signal,
        }).catch(() => null);
        if (res === null) return;
        await res.arrayBuffer().catch(() => undefined);
        if (res.status === 200) hogJobs++;
        else await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
      }
    };
    const hogs = [hogLoop(), hogLoop()];
    await new Promise((r) => setTimeout(r, 500));
    const abusedLive = await liveP99();
    const abusedBacktest = await backtestMs();
    stopHog.abort();
    for (const a of held) a.abort();
    await Promise.all(hogs);
    process.stderr.write(`bench: abuse: the abusing key completed ${hogJobs} analytics meanwhile\n`);

    const ratio = abusedBacktest / idleBacktest;
    const figures: BenchFigure[] = [
      { key: 'abuse.idleLiveP99Ms', label: 'abuse: /live p99, no abuser', value: idleLive, unit: 'ms' },
      {
        key: 'abuse.liveP99Ms',
        label: 'abuse: /live p99 while one key holds its maximum',
        value: abusedLive,
        unit: 'ms',
        target: `< ${TARGET_LIVE_P99_MS}`,
        met: abusedLive < TARGET_LIVE_P99_MS,
      },
      { key: 'abuse.idleBacktestMs', label: 'abuse: backtest (50k rounds), no abuser', value: Math.round(idleBacktest * 100) / 100, unit: 'ms' },
      { key: 'abuse.backtestMs', label: 'abuse: backtest while one key holds its maximum', value: Math.round(abusedBacktest * 100) / 100, unit: 'ms' },
      {
        key: 'abuse.backtestRatio',
        label: 'abuse: backtest time, abused / idle',
        value: Math.round(ratio * 100) / 100,
        unit: 'x',
        target: `< ${TARGET_BACKTEST_RATIO}`,
        met: ratio < TARGET_BACKTEST_RATIO,
      },
    ];
    return figures;
  } finally {
    stopHog.abort();
    await lab?.stop();
    deployed?.remove();
    await gw.stop();
  }
};

export default bench;
