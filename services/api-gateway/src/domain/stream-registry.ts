/**
 * The open long-lived responses (SSE streams, NDJSON dumps) of one gateway process, by
 * key and by client address: the concurrency caps are checked here, and the streams of a
 * revoked or expired key, or of a dashboard session that ended, are found here to be closed.
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
  /** The dashboard session the stream was opened with, if any: it closes when the session ends. */
  readonly session?: StreamSession;
}

interface StreamSession {
  readonly subscriberId: string;
  /** The subscriber's session epoch at sign-in (over once the epoch is higher). */
  readonly epoch: number;
  readonly expiresAtMs: number;
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

  /** Closes every stream whose key's paid period, or whose session, has ended by `nowMs`; returns how many. */
  closeExpired(nowMs: number): number {
    return this.closeWhere(({ paidUntilMs, session }) => paidUntilMs <= nowMs || (session !== undefined && session.expiresAtMs <= nowMs));
  }

  /** Closes the streams of the subscriber's dashboard sessions signed in below `epoch` (signed out); returns how many. */
  endSessions(subscriberId: string, epoch: number): number {
    return this.closeWhere(({ session }) => session !== undefined && session.subscriberId === subscriberId && session.epoch < epoch);
  }

  /** The subscribers with a stream open by a dashboard session (their epochs are re-checked). */
  sessionSubscribers(): string[] {
    const ids = new Set<string>();
    for (const set of this.byKey.values()) for (const { owner } of set) if (owner.session !== undefined) ids.add(owner.session.subscriberId);
    return [...ids];
  }

  private closeWhere(ended: (owner: StreamOwner) => boolean): number {
    const closing: Entry[] = [];
    for (const set of this.byKey.values()) for (const entry of set) if (ended(entry.owner)) closing.push(entry);
    for (const entry of closing) entry.close();
    return closing.length;
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
