import { decodeEvent, openLiveBucket, type NatsConnection, type StreamSettings } from '@gridlab/bus';
import { type LiveSnapshot, type NatsNames } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import { ageSeconds, isStale, replaces, withStaleField } from '../../domain/live-freshness';

/** The held snapshot as served: its bytes with `"stale": false` and with `"stale": true`. */
export interface HeldSnapshot {
  readonly snapshot: LiveSnapshot;
  /** The bytes as published. */
  readonly bytes: Buffer;
  readonly seq: number;
  /** `snapshot.updatedAt` parsed. */
  readonly builtAtMs: number;
  readonly freshBytes: Buffer;
  readonly staleBytes: Buffer;
}

/** What /live and the stream serve at a moment. */
export interface LiveView {
  readonly held: HeldSnapshot;
  readonly stale: boolean;
  readonly ageSeconds: number;
  /** The snapshot's JSON with its `stale` member. */
  readonly body: Buffer;
}

/**
 * The latest live snapshot, held in memory with its serialized bytes so that GET /live
 * and the SSE stream never query anything or serialize per request. A snapshot older
 * than `staleAfterSeconds` (by its updatedAt) is served marked stale.
 */
export class LiveCache {
  private current: HeldSnapshot | null = null;
  private readonly listeners = new Set<() => void>();
  private seq = 0;

  constructor(
    readonly staleAfterSeconds = 90,
    private readonly now: () => number = Date.now,
  ) {}

  get latest(): HeldSnapshot | null {
    return this.current;
  }

  /** The held snapshot with its age and staleness now, or null before the first one. */
  view(): LiveView | null {
    const held = this.current;
    if (held === null) return null;
    const now = this.now();
    const stale = isStale(held.builtAtMs, now, this.staleAfterSeconds);
    return { held, stale, ageSeconds: ageSeconds(held.builtAtMs, now), body: stale ? held.staleBytes : held.freshBytes };
  }

  /** Accepts a snapshot unless the held one should stand (see domain/live-freshness). */
  offer(snapshot: LiveSnapshot, bytes: Buffer): boolean {
    const held = this.current;
    if (held !== null && !replaces(held.snapshot, snapshot, isStale(held.builtAtMs, this.now(), this.staleAfterSeconds))) return false;
    this.current = { snapshot, bytes, seq: ++this.seq, builtAtMs: Date.parse(snapshot.updatedAt), freshBytes: withStaleField(bytes, false), staleBytes: withStaleField(bytes, true) };
    for (const listener of this.listeners) listener();
    return true;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Fills the cache from the KV bucket, then follows every published snapshot. */
export async function followLive(nc: NatsConnection, names: NatsNames, cache: LiveCache, logger: Logger, streams: StreamSettings = {}): Promise<() => void> {
  const accept = (data: Uint8Array): void => {
    try {
      const snapshot = decodeEvent('liveUpdated', data);
      cache.offer(snapshot, Buffer.from(data));
    } catch (error) {
      logger.warn('invalid live snapshot ignored', { err: error });
    }
  };
  const sub = nc.subscribe(names.subjects.liveUpdated, { callback: (_error, msg) => accept(msg.data) });
  try {
    const kv = await openLiveBucket(nc, names, streams);
    const entry = await kv.get(names.liveKey);
    if (entry !== null && entry.value.length > 0) accept(entry.value);
  } catch (error) {
    logger.warn('live bucket not readable; waiting for the next snapshot', { err: error });
  }
  return () => sub.unsubscribe();
}
