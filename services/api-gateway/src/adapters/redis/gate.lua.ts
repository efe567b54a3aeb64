import type { BucketPolicy } from '../../domain/token-bucket';
import type { LeasePolicy } from '../../domain/token-lease';
import { NOW_LUA, TAKE_TOKENS_LUA } from './token-bucket.lua';

export interface GatePolicy {
  readonly key: BucketPolicy;
  readonly sharingWindowMs: number;
  readonly maxAddressesPerKey: number;
  /** Leases of the key bucket's tokens (maxTokens 0: none). */
  readonly lease: Pick<LeasePolicy, 'maxTokens' | 'share' | 'ttlMs'>;
}

const luaNumber = (n: number): string => {
  if (!Number.isFinite(n)) throw new RangeError(`${n} is not a finite number`);
  return String(n);
};

/**
 * Everything a paid request needs from Redis in one atomic round trip:
 *  1. the cached key record (`auth`): `<subscriberId>|<paidUntilMs>`, or `x` for a key
 *     known to be unknown or revoked (a tombstone that outlives any positive entry, so a
 *     racing cache fill can never resurrect a revoked key);
 *  2. for a live key, the token bucket (the same arithmetic as TOKEN_BUCKET_LUA), first
 *     given back this replica's ended lease, then asked for `cost` and, when the replica
 *     may take one and the bucket holds plenty, a new lease (domain/token-lease.ts);
 *  3. the key-sharing tracker: client addresses seen in the sliding window, and whether
 *     this request newly crossed the limit (flagged once per window).
 *
 * KEYS: auth, bucket, addresses (zset), flag.
 * ARGV: cost, client address, track ('1' to record the address this time; the caller
 * records each key/address pair at most every few seconds, which keeps the per-request
 * script to the bucket). The policy (capacity, refill, window, max addresses) is
 * constant per deployment and written into the script, so a request sends only what
 * varies; refund (the ended lease's unused tokens, 0 for none), released (all that lease
 * was granted), askLease ('1' when the replica may take a lease).
 * Returns { state, subscriberId, paidUntilMs, allowed, tokens, distinct, newlyFlagged, lease }
 * where state is 'miss' (nothing else done: resolve from PostgreSQL and retry),
 * 'invalid', 'expired' or 'ok'.
 */
export const gateLua = (policy: GatePolicy): string => `
local auth = redis.call('GET', KEYS[1])
if not auth then return { 'miss' } end
if auth == 'x' then return { 'invalid' } end
local sep = string.find(auth, '|', 1, true)
local subscriber = string.sub(auth, 1, sep - 1)
local paidUntil = tonumber(string.sub(auth, sep + 1))
${NOW_LUA}
if paidUntil <= now then return { 'expired', subscriber, tostring(paidUntil) } end

local bucket = KEYS[2]
local capacity = ${luaNumber(policy.key.capacity)}
local rate = ${luaNumber(policy.key.refillPerSecond)}
local cost = tonumber(ARGV[1])
local refund = tonumber(ARGV[4]) or 0
local released = tonumber(ARGV[5]) or 0
local askLease = tonumber(ARGV[6]) or 0
local leaseTtl = ${luaNumber(policy.lease.ttlMs)}
local leaseMax = ${luaNumber(policy.lease.maxTokens)}
local leaseShare = ${luaNumber(policy.lease.share)}
${TAKE_TOKENS_LUA}

if ARGV[3] ~= '1' then return { 'ok', subscriber, tostring(paidUntil), allowed, tostring(tokens), -1, 0, lease } end
local window = ${luaNumber(policy.sharingWindowMs)}
redis.call('ZADD', KEYS[3], now, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
redis.call('PEXPIRE', KEYS[3], window)
local distinct = redis.call('ZCARD', KEYS[3])
local flagged = 0
if distinct > ${luaNumber(policy.maxAddressesPerKey)} then
  if redis.call('SET', KEYS[4], '1', 'NX', 'PX', window) then flagged = 1 end
end
return { 'ok', subscriber, tostring(paidUntil), allowed, tostring(tokens), distinct, flagged, lease }
`;

