import { TOKEN_BUCKET_LUA } from './token-bucket.lua';

/**
 * Everything a paid request needs from Redis in one atomic round trip:
 *  1. the cached key record (`auth`): `<subscriberId>|<paidUntilMs>`, or `x` for a key
 *     known to be unknown or revoked (a tombstone that outlives any positive entry, so a
 *     racing cache fill can never resurrect a revoked key);
 *  2. for a live key, the token bucket (the same arithmetic as TOKEN_BUCKET_LUA);
 *  3. the key-sharing tracker: client addresses seen in the sliding window, and whether
 *     this request newly crossed the limit (flagged once per window).
 *
 * KEYS: auth, bucket, addresses (zset), flag.
 * ARGV: capacity, refill per second, cost, client address, window ms, max addresses.
 * Returns { state, subscriberId, paidUntilMs, allowed, tokens, distinct, newlyFlagged }
 * where state is 'miss' (nothing else done: resolve from PostgreSQL and retry),
 * 'invalid', 'expired' or 'ok'.
 */
export const GATE_LUA = `
local auth = redis.call('GET', KEYS[1])
if not auth then return { 'miss' } end
if auth == 'x' then return { 'invalid' } end
local sep = string.find(auth, '|', 1, true)
local subscriber = string.sub(auth, 1, sep - 1)
local paidUntil = tonumber(string.sub(auth, sep + 1))
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if paidUntil <= now then return { 'expired', subscriber, tostring(paidUntil) } end

local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local stored = redis.call('HMGET', KEYS[2], 'tokens', 'ts')
local tokens = tonumber(stored[1])
local ts = tonumber(stored[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate / 1000)
local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[2], math.ceil(capacity / rate * 1000) + 1000)

local window = tonumber(ARGV[5])
redis.call('ZADD', KEYS[3], now, ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
redis.call('PEXPIRE', KEYS[3], window)
local distinct = redis.call('ZCARD', KEYS[3])
local flagged = 0
if distinct > tonumber(ARGV[6]) then
  if redis.call('SET', KEYS[4], '1', 'NX', 'PX', window) then flagged = 1 end
end
return { 'ok', subscriber, tostring(paidUntil), allowed, tostring(tokens), distinct, flagged }
`;

/** Keeps the standalone bucket script (public endpoints, per IP) and the gate in step. */
export const SCRIPTS = { gate: GATE_LUA, bucket: TOKEN_BUCKET_LUA } as const;
