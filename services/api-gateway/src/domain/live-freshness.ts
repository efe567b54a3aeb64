/**
 * Which live snapshot the gateway holds, and when it is stale. Pure: the cache and the
 * HTTP handlers apply these rules (docs/decisions.md, "Live snapshots after a restart").
 */

/** What the rules read of a snapshot: the chain's slot and when the indexer built it. */
export interface SnapshotStamp {
  readonly slot: number;
  readonly updatedAt: string;
}

/**
 * How much later (by the indexer's clock) a snapshot must be built to replace one of a
 * higher slot. Within this window, a lower slot is a late delivery (the KV read racing
 * the subscription, or a deposed leader's last publish) and is dropped; beyond it, the
 * chain the indexer observes now is behind the held snapshot (restarted from genesis,
 * restored from an older save, another cluster), and the newer observation wins.
 */
export const REORDER_WINDOW_MS = 5_000;

/**
 * True when `next` should replace `held`: a higher slot; the same slot built later; or
 * a lower slot when the held snapshot is stale already, or was built more than the
 * reorder window before `next`.
 */
export function replaces(held: SnapshotStamp, next: SnapshotStamp, heldIsStale = false): boolean {
  if (next.slot > held.slot) return true;
  if (heldIsStale) return true;
  const later = Date.parse(next.updatedAt) - Date.parse(held.updatedAt);
  if (next.slot === held.slot) return later > 0;
  return later > REORDER_WINDOW_MS;
}

/**
 * Whole seconds since the snapshot was built (0 for a clock slightly ahead). `builtAtMs`
 * is its `updatedAt` parsed, once per snapshot: these run on every /live request.
 */
export function ageSeconds(builtAtMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - builtAtMs) / 1000));
}

/** True when no snapshot newer than `staleAfterSeconds` is held (`builtAtMs` as for ageSeconds). */
export function isStale(builtAtMs: number, nowMs: number, staleAfterSeconds: number): boolean {
  return nowMs - builtAtMs > staleAfterSeconds * 1000;
}

/**
 * The snapshot's JSON object with `"stale": <flag>` added as its last member (the
 * published bytes are kept: no parse, one copy).
 */
export function withStaleField(json: Buffer, stale: boolean): Buffer {
  const end = json.lastIndexOf('}');
  if (end < 0) throw new Error('a snapshot is a JSON object');
  const empty = json.subarray(0, end).toString('latin1').trim().endsWith('{');
  return Buffer.concat([json.subarray(0, end), Buffer.from(`${empty ? '' : ','}"stale":${stale}}`)]);
}
