/** Counts requests in flight per key and refuses one beyond the limit. */
export class InFlight {
  private readonly counts = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** A release function (call it exactly once when the request ends), or null when the key is at its limit. */
  acquire(key: string): (() => void) | null {
    const n = this.counts.get(key) ?? 0;
    if (n >= this.limit) return null;
    this.counts.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}
