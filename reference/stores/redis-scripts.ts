// Lua sources of the Redis store: each multi-step operation runs as one atomic server-side script.
//
// Exactness: stored values are Redis integers (64-bit). Arithmetic is done by HINCRBY on the
// decimal strings passed in ARGV, never by Lua. Lua numbers are doubles, used only to compare
// values that are at most 2^53 - 1 (the store never lets a balance pass it), which doubles hold
// exactly. Scripts return balances as the stored decimal string, not as an integer reply, because
// node-redis 5 decodes integer replies within 46 of 2^53 - 1 inexactly.

const PRELUDE = `
local MAX_SAFE = 9007199254740991
local function ensure_client(key, now)
  redis.call('HSETNX', key, 'balance', '0')
  redis.call('HSETNX', key, 'top_ups', '0')
  redis.call('HSETNX', key, 'created_at', now)
end
local function overflows(key, amount)
  local balance = tonumber(redis.call('HGET', key, 'balance') or '0')
  return balance > MAX_SAFE - tonumber(amount)
end
-- Decimal text of an integer-valued double (exact below 2^53); HINCRBY needs text, not '1e+15'.
local function int(n)
  return string.format('%d', n)
end
local function overflow_error(amount)
  return redis.error_reply('CREDIT402_OVERFLOW adding ' .. amount .. ' would exceed Number.MAX_SAFE_INTEGER')
end
-- Appends one entry to a log stream, drops entries older than ttl seconds, and expires the key ttl
-- seconds after this append, so no log key outlives its newest entry by more than ttl.
local function append_log(key, ttl, fields)
  local now = redis.call('TIME')
  local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local min_id = string.format('%d', now_ms - ttl * 1000)
  redis.call('XADD', key, 'MINID', min_id, '*', unpack(fields))
  redis.call('EXPIRE', key, ttl)
end
`;

/**
 * KEYS: client, and the client's log when a record is appended. ARGV: amount, then ttl seconds and the
 * record's field/value pairs when a record is appended. Returns the new balance, or nil when unknown or
 * insufficient (a negative balance is insufficient for every amount, 0 included).
 */
export const DEDUCT = `${PRELUDE}
local balance = redis.call('HGET', KEYS[1], 'balance')
if not balance or tonumber(balance) < tonumber(ARGV[1]) then return false end
if KEYS[2] then
  local fields = {}
  for i = 3, #ARGV do fields[i - 2] = ARGV[i] end
  append_log(KEYS[2], tonumber(ARGV[2]), fields)
end
if ARGV[1] == '0' then return balance end
redis.call('HINCRBY', KEYS[1], 'balance', '-' .. ARGV[1])
return redis.call('HGET', KEYS[1], 'balance')
`;

/** KEYS: client. ARGV: amount, now. Returns the new balance. */
export const ADD = `${PRELUDE}
if overflows(KEYS[1], ARGV[1]) then return overflow_error(ARGV[1]) end
ensure_client(KEYS[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'balance', ARGV[1])
return redis.call('HGET', KEYS[1], 'balance')
`;

/** KEYS: client. ARGV: now. */
export const ENSURE = `${PRELUDE}
ensure_client(KEYS[1], ARGV[1])
return false
`;

/**
 * KEYS: client, credited-PaymentIntent marker, client's log, the PaymentIntent's reversals hash.
 * ARGV: amount, now, ttl seconds, record ('1' or '0'), transaction id, PaymentIntent id, client id.
 * The marker's value is '<amount> <client id>', read back by REVERSE_TOP_UP.
 * Returns { '1' | '0' (credited), balance }.
 */
export const CREDIT_TOP_UP = `${PRELUDE}
local amount, now, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
if not redis.call('SET', KEYS[2], amount .. ' ' .. ARGV[7], 'NX', 'EX', ttl) then
  return { '0', redis.call('HGET', KEYS[1], 'balance') or '0' }
end
local reversed = tonumber(redis.call('HGET', KEYS[4], 'total') or '0')
local net = amount
if reversed > 0 then net = int(tonumber(amount) - math.min(tonumber(amount), reversed)) end
if overflows(KEYS[1], net) then
  redis.call('DEL', KEYS[2])
  return overflow_error(amount)
end
ensure_client(KEYS[1], now)
redis.call('HINCRBY', KEYS[1], 'balance', net)
redis.call('HINCRBY', KEYS[1], 'top_ups', 1)
if ARGV[4] == '1' then
  append_log(KEYS[3], ttl, { 'id', ARGV[5], 'type', 'topup', 'client_id', ARGV[7], 'amount', amount,
    'created_at', now, 'payment_intent_id', ARGV[6] })
end
return { '1', redis.call('HGET', KEYS[1], 'balance') }
`;

/** KEYS: client's log. ARGV: ttl seconds, then the entry's field/value pairs. */
export const RECORD_TRANSACTION = `${PRELUDE}
local fields = {}
for i = 2, #ARGV do fields[i - 1] = ARGV[i] end
append_log(KEYS[1], tonumber(ARGV[1]), fields)
return false
`;

/**
 * KEYS: the PaymentIntent's reversals hash, its credited marker. ARGV: reversal key, amount, ttl seconds,
 * key prefix (the credited client's hash is '<prefix>client:<id>', named by the marker). The hash holds
 * 'k:<reversal key>' = units and 'total' = their sum (saturating at 2^53 - 1).
 * Returns { '1' | '0' (changed), taken, client id or '', balance or '' }.
 */
export const REVERSE_TOP_UP = `${PRELUDE}
local field, amount, ttl, prefix = 'k:' .. ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local marker = redis.call('GET', KEYS[2])
local units, client = nil, ''
if marker then
  local space = string.find(marker, ' ', 1, true)
  -- A marker written before reversals existed holds only the client id: its amount is unknown (no cap).
  if space then units, client = tonumber(string.sub(marker, 1, space - 1)), string.sub(marker, space + 1)
  else client = marker end
end
local function balance()
  if client == '' then return '' end
  return redis.call('HGET', prefix .. 'client:' .. client, 'balance') or '0'
end
local previous = tonumber(redis.call('HGET', KEYS[1], field) or '0')
if amount <= previous then return { '0', '0', client, balance() } end
local before = tonumber(redis.call('HGET', KEYS[1], 'total') or '0')
local after = math.min(MAX_SAFE, before + amount - previous)
redis.call('HSET', KEYS[1], field, ARGV[2], 'total', int(after))
redis.call('EXPIRE', KEYS[1], ttl)
if not marker then return { '1', '0', '', '' } end
local taken = after - before
if units then taken = math.min(units, after) - math.min(units, before) end
if taken > 0 then redis.call('HINCRBY', prefix .. 'client:' .. client, 'balance', int(-taken)) end
return { '1', int(taken), client, balance() }
`;

/** KEYS: lock. ARGV: token. Deletes the lock only when it holds `token`; returns 1 when deleted. */
export const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
