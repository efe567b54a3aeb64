import { POSITIVE_TTL_MS, keyCacheKeys } from '@gridlab/key-cache';
import type { Redis } from 'ioredis';
import { decide, type BucketDecision, type BucketPolicy } from '../../domain/token-bucket';
import { DEFAULT_LEASE_POLICY, TokenLeases, type LeasePolicy } from '../../domain/token-lease';
import type { CachedKey, KeyGate, KeyRecord } from '../../app/ports';
import { gateLua } from './gate.lua';
import { TOKEN_BUCKET_LUA } from './token-bucket.lua';

export interface RedisGateOptions {
  /** Prepended to every key this adapter touches (per deployment or per test run). */
  readonly prefix: string;
  readonly keyPolicy: BucketPolicy;
  readonly sharingWindowMs: number;
  readonly maxAddressesPerKey: number;
  /** Leases of key-bucket tokens held by this replica (maxTokens 0: a Redis call per request). */
  readonly lease?: LeasePolicy;
}

type GateReply = [string, string?, string?, number?, string?, number?, number?, number?];

/**
 * A key/address pair is recorded in the sharing tracker at most this often per process,
 * as a share of the tracker's window: a pair in use is re-recorded long before the window
 * forgets it, and a busy key's requests then touch only the bucket (or its lease). A pair
 * seen for the first time is recorded at once.
 */
const TRACKS_PER_WINDOW = 5;
/** Addresses remembered per key; a key seen from more than this starts over (it is flagged anyway). */
const MAX_TRACKED_ADDRESSES = 1_000;

interface HashEntry {
  /** The key hash in hex (the lease's name). */
  readonly id: string;
  readonly keys: ReturnType<typeof keyCacheKeys>;
  readonly tracked: Map<string, number>;
}

/**
 * The gateway's Redis side: key cache, per-key bucket and key-sharing tracker in one
 * script call (see gate.lua.ts), the per-IP bucket for public endpoints, and cache
 * writes. A busy key is served from a lease of its bucket's tokens between calls
 * (domain/token-lease.ts), except when its address is due to be recorded by the
 * sharing tracker. Every call rejects quickly when Redis is slow or down
 * (the client is built with a 50 ms command timeout and no offline queue); the caller
 * falls back to PostgreSQL and the in-process limiter.
 */
export class RedisGate implements KeyGate {
  private readonly entries = new WeakMap<Buffer, HashEntry>();
  private readonly leases: TokenLeases;
  private readonly trackEveryMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisGateOptions,
    private readonly now: () => number = Date.now,
  ) {
    const lease = options.lease ?? DEFAULT_LEASE_POLICY;
    this.leases = new TokenLeases(options.keyPolicy, lease, now);
    this.trackEveryMs = options.sharingWindowMs / TRACKS_PER_WINDOW;
    redis.defineCommand('gridlabGate', {
      numberOfKeys: 4,
      lua: gateLua({ key: options.keyPolicy, sharingWindowMs: options.sharingWindowMs, maxAddressesPerKey: options.maxAddressesPerKey, lease }),
    });
    redis.defineCommand('gridlabBucket', { numberOfKeys: 1, lua: TOKEN_BUCKET_LUA });
  }

  /**
   * A request of a key this replica holds a lease of, unless its address is due to be
   * recorded by the sharing tracker (that takes the script).
   */
  checkLeased(keyHash: Buffer, clientAddress: string, cost = 1): (CachedKey & { readonly state: 'ok' }) | null {
    const entry = this.entryOf(keyHash);
    return this.dueForTracking(entry, clientAddress) ? null : this.fromLease(entry, cost);
  }

  /** Looks a key hash up and, when it is live, takes `cost` tokens from its bucket (or this replica's lease of them). */
  async check(keyHash: Buffer, clientAddress: string, cost = 1): Promise<CachedKey> {
    const entry = this.entryOf(keyHash);
    const track = this.shouldTrack(entry, clientAddress);
    if (!track) {
      const leased = this.fromLease(entry, cost);
      if (leased !== null) return leased;
    }
    const keys = entry.keys;
    const call = this.leases.begin(entry.id);
    let reply: GateReply;
    try {
      reply = (await (this.redis as unknown as GateCommands).gridlabGate(
        keys.auth,
        keys.bucket,
        keys.addresses,
        keys.sharingFlag,
        cost,
        clientAddress,
        track ? '1' : '0',
        call.refund,
        call.released,
        call.askLease ? '1' : '0',
      )) as GateReply;
    } catch (error) {
      this.leases.abandon(entry.id);
      throw error;
    }
    const [state, subscriberId = '', paidUntil = '0', allowed = 0, tokens = '0', distinct = 0, flagged = 0, lease = 0] = reply;
    // The script stops before the tracker unless the key is live: record the pair next time.
    if (track && state !== 'ok') entry.tracked.delete(clientAddress);
    if (state !== 'ok') this.leases.abandon(entry.id);
    if (state === 'miss' || state === 'invalid') return { state };
    if (state === 'expired') return { state, subscriberId, paidUntilMs: Number(paidUntil) };
    const paidUntilMs = Number(paidUntil);
    const sharedTokens = Number(tokens);
    // A request the shared bucket refused is served from tokens a concurrent request of
    // the same key brought back to this replica as a lease meanwhile, if any.
    const leased = this.leases.settle(entry.id, { subscriberId, paidUntilMs, tokens: lease, sharedTokens }, allowed === 1, cost);
    return {
      state: 'ok',
      subscriberId,
      paidUntilMs,
      // The lease's tokens are this key's too.
      decision: leased?.decision ?? decide(this.options.keyPolicy, sharedTokens + lease, allowed === 1, cost),
      distinctAddresses: distinct,
      newlyFlagged: flagged === 1,
    };
  }

  /**
   * Per key hash: its Redis key names and when each client address was last recorded.
   * Held weakly by the hash Buffer, which the authenticator reuses for a memoized key,
   * so a polling client costs no string building here.
   */
  private entryOf(keyHash: Buffer): HashEntry {
    let entry = this.entries.get(keyHash);
    if (entry === undefined) {
      entry = { id: keyHash.toString('hex'), keys: keyCacheKeys(this.options.prefix, keyHash), tracked: new Map() };
      this.entries.set(keyHash, entry);
    }
    return entry;
  }

  private fromLease(entry: HashEntry, cost: number): (CachedKey & { readonly state: 'ok' }) | null {
    const leased = this.leases.take(entry.id, cost);
    return leased === null ? null : { state: 'ok', ...leased, distinctAddresses: -1, newlyFlagged: false };
  }

  private dueForTracking(entry: HashEntry, clientAddress: string): boolean {
    const last = entry.tracked.get(clientAddress);
    return last === undefined || this.now() - last >= this.trackEveryMs;
  }

  /** Whether this request records its address in the tracker; if so, noted as recorded now. */
  private shouldTrack(entry: HashEntry, clientAddress: string): boolean {
    if (!this.dueForTracking(entry, clientAddress)) return false;
    const nowMs = this.now();
    if (entry.tracked.size >= MAX_TRACKED_ADDRESSES) entry.tracked.clear();
    entry.tracked.set(clientAddress, nowMs);
    return true;
  }

  /**
   * Caches a key record PostgreSQL gave, only if nothing is cached yet, so a fill racing
   * a revocation cannot overwrite the revocation's tombstone (revokers write those:
   * `tombstoneKey`).
   */
  async remember(keyHash: Buffer, record: KeyRecord): Promise<void> {
    const key = keyCacheKeys(this.options.prefix, keyHash).auth;
    await this.redis.set(key, `${record.subscriberId}|${record.paidUntilMs}`, 'PX', POSITIVE_TTL_MS, 'NX');
  }

  /** A revoked key (its tombstone announced, or access.key.revoked): this replica's lease of its tokens ends now. */
  forget(keyHashHex: string): void {
    this.leases.forget(keyHashHex);
  }

  /** Per-client-address bucket for public endpoints. */
  async takeForAddress(policy: BucketPolicy, clientAddress: string, cost = 1): Promise<BucketDecision> {
    const [allowed, tokens] = (await (this.redis as unknown as GateCommands).gridlabBucket(
      `${this.options.prefix}ip:${clientAddress}`,
      policy.capacity,
      policy.refillPerSecond,
      cost,
    )) as [number, string];
    return decide(policy, Number(tokens), allowed === 1, cost);
  }
}

/** The script commands registered by `defineCommand` (ioredis adds them at run time). */
interface GateCommands {
  gridlabGate(...args: (string | number)[]): Promise<unknown>;
  gridlabBucket(...args: (string | number)[]): Promise<unknown>;
}
