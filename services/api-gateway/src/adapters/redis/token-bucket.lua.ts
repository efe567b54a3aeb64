/**
 * The token bucket of domain/token-bucket.ts in Lua, run atomically inside Redis in one
 * round trip. The clock is Redis' own TIME, so every gateway replica shares one time
 * base. Tokens are kept fractional (as a string: Lua numbers would be truncated to
 * integers in the reply).
 *
 * TAKE_TOKENS_LUA expects `now` (ms), `capacity`, `rate` (refill per second), `cost`, the
 * bucket key in `bucket`, and for leases (domain/token-lease.ts) `refund` (unused tokens
 * of an ended lease, given back first), `leaseMax` and `leaseShare` (after an allowed
 * request, up to min(leaseMax, tokens / leaseShare) whole tokens are taken as a lease);
 * it leaves `allowed` (0|1), `tokens` and `lease`.
 */
export const TAKE_TOKENS_LUA = `
local stored = redis.call('HMGET', bucket, 'tokens', 'ts')
local tokens = tonumber(stored[1])
local ts = tonumber(stored[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate / 1000 + refund)
local allowed = 0
local lease = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
  lease = math.min(leaseMax, math.floor(tokens / leaseShare))
  tokens = tokens - lease
end
redis.call('HSET', bucket, 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', bucket, math.ceil(capacity / rate * 1000) + 1000)
`;

/** Redis TIME as milliseconds, into `now`. */
export const NOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * The standalone bucket (public endpoints, per client address).
 * KEYS[1] bucket key; ARGV: capacity, refill per second, cost.
 * Returns { allowed (0|1), tokens after the request as a string }.
 */
export const TOKEN_BUCKET_LUA = `${NOW_LUA}
local bucket = KEYS[1]
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local refund = 0
local leaseMax = 0
local leaseShare = 1
${TAKE_TOKENS_LUA}
return { allowed, tostring(tokens) }
`;
