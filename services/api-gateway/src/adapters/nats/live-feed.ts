import { decodeMessage, openLiveBucket, type NatsConnection } from '@gridlab/bus';
import { validateLiveSnapshot, type LiveSnapshot, type NatsNames } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';

/**
 * The latest live snapshot, held in memory with its serialized bytes so that GET /live
 * and the SSE stream never query anything or serialize per request.
 */
export class LiveCache {
  private current: { snapshot: LiveSnapshot; bytes: Buffer; seq: number } | null = null;
  private readonly listeners = new Set<() => void>();
  private seq = 0;

  get latest(): { readonly snapshot: LiveSnapshot; readonly bytes: Buffer; readonly seq: number } | null {
    return this.current;
  }

  /** Accepts a snapshot unless it is older than the one held (slot, then time). */
  offer(snapshot: LiveSnapshot, bytes: Buffer): boolean {
    const held = this.current?.snapshot;
    if (held !== undefined && (snapshot.slot < held.slot || (snapshot.slot === held.slot && snapshot.updatedAt <= held.updatedAt))) {
      return false;
    }
    this.current = { snapshot, bytes, seq: ++this.seq };
    for (const listener of this.listeners) listener();
    return true;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Fills the cache from the KV bucket, then follows every published snapshot. */
export async function followLive(nc: NatsConnection, names: NatsNames, cache: LiveCache, logger: Logger): Promise<() => void> {
  const accept = (data: Uint8Array): void => {
    try {
      const snapshot = decodeMessage(validateLiveSnapshot, data);
      cache.offer(snapshot, Buffer.from(data));
    } catch (error) {
      logger.warn('invalid live snapshot ignored', { err: error });
    }
  };
  const sub = nc.subscribe(names.subjects.liveUpdated, { callback: (_error, msg) => accept(msg.data) });
  try {
    const kv = await openLiveBucket(nc, names);
    const entry = await kv.get(names.liveKey);
    if (entry !== null && entry.value.length > 0) accept(entry.value);
  } catch (error) {
    logger.warn('live bucket not readable; waiting for the next snapshot', { err: error });
  }
  return () => sub.unsubscribe();
}
