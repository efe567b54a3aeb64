/**
 * The Redis layout of the API key cache. The gateway reads and fills it; revokers write
 * a tombstone into it, so every gateway replica answers 401 from that moment on.
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

/** The slice of a Redis client a revocation needs. */
export interface RedisSetter {
  set(key: string, value: string, px: 'PX', ttlMs: number): Promise<unknown>;
}

/** Marks a key hash revoked for every gateway replica. */
export async function tombstoneKey(redis: RedisSetter, prefix: string, keyHash: Buffer): Promise<void> {
  await redis.set(keyCacheKeys(prefix, keyHash).auth, TOMBSTONE, 'PX', TOMBSTONE_TTL_MS);
}

/** The Redis clients with their own ACL user (named as the service). */
export const REDIS_SERVICES = ['api-gateway', 'billing', 'lab-backtest'] as const;
export type RedisService = (typeof REDIS_SERVICES)[number];

/**
 * Each service's Redis ACL rules (the arguments of `ACL SETUSER <service>` after the
 * password): only its own keys under `prefix` and only the commands it runs. The gateway
 * keeps the key cache, buckets, sharing tracker and signed-out sessions (its Lua gate runs
 * on those keys); billing writes revocation tombstones into the key cache; lab-backtest
 * keeps the analytics cache.
 */
export function redisAclRules(prefix: string): Readonly<Record<RedisService, readonly string[]>> {
  const keys = (...patterns: string[]): string[] => patterns.map((p) => `~${prefix}${p}`);
  const base = ['reset', 'on', '-@all', '+ping', '+hello', '+client|setname', '+info', '+quit'];
  return {
    'api-gateway': [...base, ...keys('auth:*', 'bucket:*', 'addrs:*', 'shared:*', 'ip:*', 'session:*'), '+get', '+set', '+exists', '+pexpire', '+hmget', '+hset', '+time', '+zadd', '+zcard', '+zremrangebyscore', '+evalsha', '+eval', '+script|load', '+script|exists'],
    billing: [...base, ...keys('auth:*'), '+set'],
    'lab-backtest': [...base, ...keys('lab:*'), '+get', '+set'],
  };
}

/** `ACL SETUSER` arguments for one service: its rules and password. */
export function redisAclSetUser(service: RedisService, password: string, prefix: string): string[] {
  return [service, ...redisAclRules(prefix)[service], `>${password}`];
}
