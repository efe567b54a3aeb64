/** What a running NDJSON dump should do at a tick of its watchdog. */
export type DumpVerdict = 'continue' | 'too_slow' | 'too_long';

export interface DumpPacePolicy {
  /** Ticks in the window over which the minimum is counted. */
  readonly windowTicks: number;
  /** Bytes the client must take within any window (at least 1: a client that takes nothing is too slow). */
  readonly minBytesPerWindow: number;
  /** Ticks after which the dump ends however it is read. */
  readonly maxTicks: number;
}

/**
 * The pace a dump's client must keep, read off the bytes its socket has taken at each
 * tick: over the last window it must have taken the minimum (so a client that reads a few
 * KB now and then, and holds a dump slot and a snapshot for as long as it likes, is
 * ended), and the dump ends at its maximum duration.
 */
export class DumpPace {
  private readonly taken: number[] = [];
  private ticks = 0;

  constructor(private readonly policy: DumpPacePolicy) {}

  /** The socket's byte count now: whether the dump goes on. */
  tick(bytesTaken: number): DumpVerdict {
    this.ticks++;
    if (this.ticks >= this.policy.maxTicks) return 'too_long';
    this.taken.push(bytesTaken);
    if (this.taken.length > this.policy.windowTicks + 1) this.taken.shift();
    const full = this.taken.length > this.policy.windowTicks;
    return full && this.taken[this.taken.length - 1]! - this.taken[0]! < Math.max(1, this.policy.minBytesPerWindow) ? 'too_slow' : 'continue';
  }
}
