/**
 * The Redis layout of the API key cache. The gateway reads and fills it; revokers write
 * a tombstone into it, so every gateway replica answers 401 from that moment on, and
 * announce it on `revocationChannel`, so replicas drop at once what they hold of the key
 * in memory (a lease of its tokens).
 */

/** Value of a revoked or unknown key's cache entry. */
export const TOMBSTONE = 'x';
/** A tombstone outlives any positive entry, so a racing cache fill cannot resurrect a key. */
export const TOMBSTONE_TTL_MS = 24 * 3600_000;
export const POSITIVE_TTL_MS = 60_000;

/** The Redis keys that belong to one API key hash. */
export function keyCacheKeys(prefix: string, keyHash: Buffer) {
  const id = keyHash.toString('hex');
  return {
    auth: `${prefix}auth:${id}`,
    bucket: `${prefix}bucket:${id}`,
    addresses: `${prefix}addrs:${id}`,
    sharingFlag: `${prefix}shared:${id}`,
  };
}

/** The pub/sub channel of revocations: each message is a revoked key's hash in hex. */
export function revocationChannel(prefix: string): string {
  return `${prefix}revoked`;
}

/** The slice of a Redis client a revocation needs. */
export interface RedisSetter {
  set(key: string, value: string, px: 'PX', ttlMs: number): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
}

/** Marks a key hash revoked for every gateway replica, then tells them. */
export async function tombstoneKey(redis: RedisSetter, prefix: string, keyHash: Buffer): Promise<void> {
  await redis.set(keyCacheKeys(prefix, keyHash).auth, TOMBSTONE, 'PX', TOMBSTONE_TTL_MS);
  await redis.publish(revocationChannel(prefix), keyHash.toString('hex'));
}
