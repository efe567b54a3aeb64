/**
 * A short-lived, bounded set of strings (API key hashes PostgreSQL did not know): a
 * repeated unknown key is answered 401 without a lookup, and a flood of random keys
 * holds at most `maxEntries` entries, the oldest evicted first. Nothing is written to
 * Redis for an unknown key.
 */
export class NegativeCache {
  /** Insertion-ordered: the first entry is the oldest. */
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  has(key: string): boolean {
    const expiresAt = this.expiries.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.now()) return true;
    this.expiries.delete(key);
    return false;
  }

  add(key: string): void {
    this.expiries.delete(key);
    while (this.expiries.size >= this.maxEntries) this.expiries.delete(this.expiries.keys().next().value as string);
    this.expiries.set(key, this.now() + this.ttlMs);
  }

  /** Forgets a key at once (it was just issued, say). */
  delete(key: string): void {
    this.expiries.delete(key);
  }

  get size(): number {
    return this.expiries.size;
  }
}
