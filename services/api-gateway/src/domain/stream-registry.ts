/**
 * The open long-lived responses (SSE streams, NDJSON dumps) of one gateway process, by
 * key and by client address: the concurrency caps are checked here, and a revoked or
 * expired key's streams are found here to be closed.
 */
export interface StreamCaps {
  /** Concurrent streams per API key. */
  readonly perKey: number;
  /** Concurrent streams per client address (IPv6: per /64), whatever the keys. */
  readonly perAddress: number;
}

export interface StreamOwner {
  /** The key's HMAC, hex. */
  readonly key: string;
  readonly address: string;
  /** End of the key's paid period. */
  readonly paidUntilMs: number;
}

/** Which cap refused a stream, and its value. */
export interface CapRefusal {
  readonly cap: 'key' | 'address';
  readonly limit: number;
}

interface Entry {
  readonly owner: StreamOwner;
  readonly close: () => void;
}

export class StreamRegistry {
  private readonly byKey = new Map<string, Set<Entry>>();
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly caps: StreamCaps) {}

  /**
   * Registers a stream if both caps allow it; returns its release function (call it once
   * the response has closed), or which cap refused it.
   */
  open(owner: StreamOwner, close: () => void): { release: () => void } | { refused: CapRefusal } {
    const mine = this.byKey.get(owner.key);
    if ((mine?.size ?? 0) >= this.caps.perKey) return { refused: { cap: 'key', limit: this.caps.perKey } };
    const fromAddress = this.byAddress.get(owner.address) ?? 0;
    if (fromAddress >= this.caps.perAddress) return { refused: { cap: 'address', limit: this.caps.perAddress } };
    const entry: Entry = { owner, close };
    if (mine === undefined) this.byKey.set(owner.key, new Set([entry]));
    else mine.add(entry);
    this.byAddress.set(owner.address, fromAddress + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const set = this.byKey.get(owner.key);
        set?.delete(entry);
        if (set?.size === 0) this.byKey.delete(owner.key);
        const n = (this.byAddress.get(owner.address) ?? 1) - 1;
        if (n <= 0) this.byAddress.delete(owner.address);
        else this.byAddress.set(owner.address, n);
      },
    };
  }

  /** Closes every stream of a revoked key; returns how many. */
  revoke(key: string): number {
    const set = this.byKey.get(key);
    if (set === undefined) return 0;
    const entries = [...set];
    for (const entry of entries) entry.close();
    return entries.length;
  }

  /** Closes every stream whose key's paid period has ended by `nowMs`; returns how many. */
  closeExpired(nowMs: number): number {
    const expired: Entry[] = [];
    for (const set of this.byKey.values()) for (const entry of set) if (entry.owner.paidUntilMs <= nowMs) expired.push(entry);
    for (const entry of expired) entry.close();
    return expired.length;
  }

  /** Open streams of one key (for tests and metrics). */
  countForKey(key: string): number {
    return this.byKey.get(key)?.size ?? 0;
  }

  get size(): number {
    let n = 0;
    for (const set of this.byKey.values()) n += set.size;
    return n;
  }
}
