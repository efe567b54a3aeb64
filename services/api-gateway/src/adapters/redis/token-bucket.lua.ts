/**
 * How much longer the shared bucket counts a lease than the replica holding it may spend
 * it: the replica starts its lease's clock when the answer arrives, after the bucket
 * granted it, and Redis calls time out after 50 ms.
 */
const LEASE_MARGIN_MS = 1000;

/**
 * The token bucket of domain/token-bucket.ts in Lua, run atomically inside Redis in one
 * round trip. The clock is Redis' own TIME, so every gateway replica shares one time
 * base. Tokens are kept fractional (as a string: Lua numbers would be truncated to
 * integers in the reply).
 *
 * Leases (domain/token-lease.ts): the bucket also counts the tokens it granted ahead to
 * replicas (`leased`) until they are given back or `leasedUntil` (the latest grant's
 * time to live plus LEASE_MARGIN_MS) has passed, and refills only up to the capacity
 * less what is out on lease, so tokens here plus tokens on lease never exceed the
 * capacity.
 *
 * TAKE_TOKENS_LUA expects `now` (ms), `capacity`, `rate` (refill per second), `cost`, the
 * bucket key in `bucket`, and for leases `refund` (unused tokens of a lease that ended
 * within its time to live, given back first), `released` (everything that lease was
 * granted), `askLease` (1 when the replica may take a lease), `leaseMax`, `leaseShare`
 * and `leaseTtl` (after an allowed request, up to min(leaseMax, tokens / leaseShare)
 * whole tokens are taken as a lease); it leaves `allowed` (0|1), `tokens` and `lease`.
 */
export const TAKE_TOKENS_LUA = `
local stored = redis.call('HMGET', bucket, 'tokens', 'ts', 'leased', 'leasedUntil')
local tokens = tonumber(stored[1])
local ts = tonumber(stored[2])
local leased = tonumber(stored[3]) or 0
local leasedUntil = tonumber(stored[4]) or 0
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
if leasedUntil <= now then leased = 0 end
leased = math.max(0, leased - released)
tokens = math.min(capacity - leased, tokens + math.max(0, now - ts) * rate / 1000 + refund)
local allowed = 0
local lease = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
  if askLease == 1 then lease = math.min(leaseMax, math.floor(tokens / leaseShare)) end
  if lease > 0 then
    tokens = tokens - lease
    leased = leased + lease
    leasedUntil = now + leaseTtl + ${LEASE_MARGIN_MS}
  end
end
local ttl = math.ceil(capacity / rate * 1000) + 1000
if leased > 0 then
  redis.call('HSET', bucket, 'tokens', tostring(tokens), 'ts', tostring(now), 'leased', tostring(leased), 'leasedUntil', tostring(leasedUntil))
  ttl = math.max(ttl, leasedUntil - now + 1000)
else
  redis.call('HSET', bucket, 'tokens', tostring(tokens), 'ts', tostring(now))
  if stored[3] then redis.call('HDEL', bucket, 'leased', 'leasedUntil') end
end
redis.call('PEXPIRE', bucket, ttl)
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
local released = 0
local askLease = 0
local leaseMax = 0
local leaseShare = 1
local leaseTtl = 0
${TAKE_TOKENS_LUA}
return { allowed, tostring(tokens) }
`;
