import { DumpPace } from './dump-pace';

/** The defaults: a tick every 7.5 s, a 30 s window (4 ticks), 64 KiB/s, 15 minutes. */
const policy = { windowTicks: 4, minBytesPerWindow: 64 * 1024 * 30, maxTicks: 120 };
const MB = 1024 * 1024;

/** The verdicts for a client whose socket has taken `bytesAt(tick)` at each tick, until the first that ends it. */
function run(bytesAt: (tick: number) => number, p = policy): { verdict: string; atTick: number } {
  const pace = new DumpPace(p);
  for (let t = 1; t <= 1000; t++) {
    const verdict = pace.tick(bytesAt(t));
    if (verdict !== 'continue') return { verdict, atTick: t };
  }
  return { verdict: 'continue', atTick: 1000 };
}

describe('DumpPace', () => {
  it('ends a client that takes a few KB now and then (it made progress in every window) once a window falls below the rate', () => {
    // The socket buffers take 3 MB at once, then the client reads 4 KB per tick: never idle for a window.
    expect(run((t) => 3 * MB + 4096 * t)).toEqual({ verdict: 'too_slow', atTick: 5 });
    // What only "nothing for a window" would allow: the same client goes on until the maximum duration.
    expect(run((t) => 3 * MB + 4096 * t, { ...policy, minBytesPerWindow: 0 })).toEqual({ verdict: 'too_long', atTick: 120 });
  });

  it('ends a client that takes nothing for a window, and keeps one that reads at the rate until the maximum duration', () => {
    expect(run(() => 0)).toEqual({ verdict: 'too_slow', atTick: 5 });
    expect(run((t) => t * (policy.minBytesPerWindow / policy.windowTicks))).toEqual({ verdict: 'too_long', atTick: 120 });
  });

  it('judges the last window only: a slow start followed by a fast read goes on', () => {
    const pace = new DumpPace(policy);
    const bytes = [0, 0, 0, 2 * MB, 4 * MB, 6 * MB, 8 * MB];
    expect(bytes.map((b) => pace.tick(b))).toEqual(['continue', 'continue', 'continue', 'continue', 'continue', 'continue', 'continue']);
  });
});
