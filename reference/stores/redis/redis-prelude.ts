// Lua helpers every Redis store script starts with: client hashes, per-currency balances, the lazy migration, the log.
//
// Exactness: stored values are Redis integers (64-bit). Arithmetic is done by HINCRBY on the decimal
// strings passed in ARGV, never by Lua. Lua numbers are doubles, used only to compare values that are at
// most 2^53 - 1 (the store never lets a balance pass it), which doubles hold exactly. Scripts return
// balances as the stored decimal string, not as an integer reply, because node-redis 5 decodes integer
// replies within 46 of 2^53 - 1 inexactly.
//
// Migration (balances per currency): a client hash written before balances had a currency holds one
// field `balance`. Every script that touches a client hash first calls `migrate`, which moves that field
// into `balance:<legacy currency>` inside the same atomic script: the first touch migrates, later touches
// find nothing to move. It adds (HINCRBY) rather than sets, so a balance an older process wrote after the
// migration (during a rolling upgrade) is merged, not lost; a zero balance is left absent.

/** Shared Lua definitions; a script's own code follows it. */
export const PRELUDE = `
local MAX_SAFE = 9007199254740991
local function balance_field(currency)
  return 'balance:' .. currency
end
-- Moves a balance written before balances had a currency (field 'balance') to the legacy currency.
local function migrate(key, legacy)
  local old = redis.call('HGET', key, 'balance')
  if not old then return end
  if old ~= '0' then redis.call('HINCRBY', key, balance_field(legacy), old) end
  redis.call('HDEL', key, 'balance')
end
-- The balance in a currency as stored decimal text; '0' when the currency was never held.
local function balance_of(key, currency)
  return redis.call('HGET', key, balance_field(currency)) or '0'
end
local function ensure_client(key, now)
  redis.call('HSETNX', key, 'top_ups', '0')
  redis.call('HSETNX', key, 'created_at', now)
end
local function overflows(key, currency, amount)
  return tonumber(balance_of(key, currency)) > MAX_SAFE - tonumber(amount)
end
-- Decimal text of an integer-valued double (exact below 2^53); HINCRBY needs text, not '1e+15'.
local function int(n)
  return string.format('%d', n)
end
local function overflow_error(amount)
  return redis.error_reply('CREDIT402_OVERFLOW adding ' .. amount .. ' would exceed Number.MAX_SAFE_INTEGER')
end
-- The server's time in whole ms; read once per script that passes the same table seen (else nil).
local function now_ms(seen)
  local now = seen and seen.now_ms
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    if seen then seen.now_ms = now end
  end
  return now
end
-- Appends one entry to a log stream under policy '<ttl seconds>:<max entries>': trims the stream to about max
-- entries (XADD MAXLEN ~: whole stream nodes only, so at least max of the newest stay, at most a node more), drops
-- entries older than ttl seconds (XTRIM MINID, exact), and expires the key ttl seconds after this append, so no log
-- key outlives its newest entry by more than ttl. A script appending several entries passes the same table seen (else
-- nil; it needs a table seen.expires) to each: it then reads the time once, and trims by age and sets a key's expiry
-- once per policy (the same deadline: a script takes milliseconds, a ttl seconds).
local function append_log(key, policy, fields, seen)
  local colon = string.find(policy, ':', 1, true)
  redis.call('XADD', key, 'MAXLEN', '~', string.sub(policy, colon + 1), '*', unpack(fields))
  if seen and seen.expires[key] == policy then return end
  local ttl = tonumber(string.sub(policy, 1, colon - 1))
  redis.call('XTRIM', key, 'MINID', string.format('%d', now_ms(seen) - ttl * 1000))
  redis.call('EXPIRE', key, ttl)
  if seen then seen.expires[key] = policy end
end
-- Credits a top-up of amount (the record's amount) to the client hash key: net (the amount less what reversals
-- took before the credit) to the balance in currency, one more top-up, and the topup record on log_key (under
-- append_log's log_policy) when record_id is not empty.
local function apply_top_up(key, currency, net, amount, now, log_key, log_policy, record_id, client_id, payment_intent_id)
  ensure_client(key, now)
  redis.call('HINCRBY', key, balance_field(currency), net)
  redis.call('HINCRBY', key, 'top_ups', 1)
  if record_id ~= '' then
    append_log(log_key, log_policy, { 'id', record_id, 'type', 'topup', 'client_id', client_id, 'currency', currency,
      'amount', amount, 'created_at', now, 'payment_intent_id', payment_intent_id })
  end
end
`;
