// Lua sources of the Redis store: each multi-step operation runs as one atomic server-side script (deductions: redis-deduct-scripts.ts).
// Client hashes: `top_ups`, `created_at`, `balance:<currency>`; see redis-prelude.ts for exactness and migration.
import { PRELUDE } from './redis-prelude.ts';

/** KEYS: client. ARGV: currency, amount, now, legacy currency. Returns the new balance in that currency. */
export const ADD = `${PRELUDE}
local client, currency, amount = KEYS[1], ARGV[1], ARGV[2]
migrate(client, ARGV[4])
if overflows(client, currency, amount) then return overflow_error(amount) end
ensure_client(client, ARGV[3])
redis.call('HINCRBY', client, balance_field(currency), amount)
return balance_of(client, currency)
`;

/** How many of a log's newest entries REFUND_DEDUCTION searches for the refunded record: a refund follows its deduction closely. */
const REFUND_SEARCH_PAGES = 100;

/**
 * KEYS: client, client's log, the refund id's key, and the kept-request key when the deduction had a request id.
 * ARGV: currency, amount, now, legacy currency, the deduction record's id ('' without one), the refund id's ttl (ms),
 * deadline (server ms, or ''). Refused as { 'late' } before it reads or writes anything once the deadline has passed
 * (as DEDUCT: its caller stopped waiting, and will retry). Once the refund id's key exists (an applied refund, kept for
 * the ttl) it changes nothing and replies { 'repeated', balance }. Else, when the kept request (DEDUCT's '<state>…'
 * string) says its one repeat was answered, state '1' (used) or '2' (claimed, whether the claim holds or lapsed), it
 * changes nothing, keeps no refund id and replies { 'superseded', balance }: the deduction paid for that repeat
 * (CR-6.9); DEDUCT's claim and this check are each one script, so whichever runs second sees the first. Else, in one
 * script: the amount back to the balance (ADD's checks; an overflow is an error that wrote nothing), the refund id
 * kept, the record's stream entry deleted when it is among the log's newest 10 000 entries
 * ({@link REFUND_SEARCH_PAGES} pages of 100, newest first), and the kept request id deleted, so that the next
 * deduction with that id deducts again; replies { 'refunded', balance }. The balance is the one in that currency
 * after the call.
 */
export const REFUND_DEDUCTION = `${PRELUDE}
local client, log, refund, currency, amount, record_id = KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[5]
if ARGV[7] ~= '' and now_ms(nil) > tonumber(ARGV[7]) then return { 'late' } end
migrate(client, ARGV[4])
if redis.call('EXISTS', refund) == 1 then return { 'repeated', balance_of(client, currency) } end
if KEYS[4] then
  local kept = redis.call('GET', KEYS[4])
  if kept and string.sub(kept, 1, 1) ~= '0' then return { 'superseded', balance_of(client, currency) } end
end
if overflows(client, currency, amount) then return overflow_error(amount) end
ensure_client(client, ARGV[3])
redis.call('HINCRBY', client, balance_field(currency), amount)
redis.call('SET', refund, '1', 'PX', ARGV[6])
if KEYS[4] then redis.call('DEL', KEYS[4]) end
local last = '+'
for _ = 1, ${REFUND_SEARCH_PAGES} do
  if record_id == '' then break end
  local entries = redis.call('XREVRANGE', log, last, '-', 'COUNT', 100)
  for _, entry in ipairs(entries) do
    local fields = entry[2]
    for i = 1, #fields, 2 do
      if fields[i] == 'id' then
        if fields[i + 1] == record_id then
          redis.call('XDEL', log, entry[1])
          record_id = ''
        end
        break
      end
    end
    if record_id == '' then break end
  end
  if #entries < 100 then break end
  last = '(' .. entries[#entries][1]
end
return { 'refunded', balance_of(client, currency) }
`;

/** KEYS: client. ARGV: now, legacy currency. */
export const ENSURE = `${PRELUDE}
migrate(KEYS[1], ARGV[2])
ensure_client(KEYS[1], ARGV[1])
return false
`;

/** KEYS: client. ARGV: legacy currency. Returns the client hash as field/value pairs (empty when unknown). */
export const GET_CLIENT = `${PRELUDE}
migrate(KEYS[1], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

/**
 * KEYS: client, credited-PaymentIntent marker, client's log, the PaymentIntent's reversals hash, the store id.
 * ARGV: currency, amount, now, ttl seconds (the marker's), record ('1' or '0'), transaction id, PaymentIntent id,
 * client id, legacy currency, log policy ('<ttl seconds>:<max entries>', append_log's), the store id the top-up was
 * charged under ('' for no check). The marker is a hash { client, currency, amount }, read back by REVERSE_TOP_UP (a hash, not
 * the older '<amount> <client id>' string: code from before balances had a currency fails on it with WRONGTYPE
 * instead of misreading a currency as part of the client id).
 * Returns { '1' | '0' (credited), balance in the currency }; a CREDIT402_STORE_RESET error, changing nothing, when the
 * store id key does not hold the given id (the prefix was flushed since the charge, or the id is another store's).
 */
export const CREDIT_TOP_UP = `${PRELUDE}
local client, currency, amount, now, ttl = KEYS[1], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
if ARGV[11] ~= '' and redis.call('GET', KEYS[5]) ~= ARGV[11] then
  return redis.error_reply('CREDIT402_STORE_RESET the store id is not ' .. ARGV[11])
end
migrate(client, ARGV[9])
if redis.call('EXISTS', KEYS[2]) == 1 then return { '0', balance_of(client, currency) } end
local reversed = tonumber(redis.call('HGET', KEYS[4], 'total') or '0')
local net = amount
if reversed > 0 then net = int(tonumber(amount) - math.min(tonumber(amount), reversed)) end
if overflows(client, currency, net) then return overflow_error(amount) end
redis.call('HSET', KEYS[2], 'client', ARGV[8], 'currency', currency, 'amount', amount)
redis.call('EXPIRE', KEYS[2], ttl)
apply_top_up(client, currency, net, amount, now, KEYS[3], ARGV[10], ARGV[5] == '1' and ARGV[6] or '', ARGV[8], ARGV[7])
return { '1', balance_of(client, currency) }
`;

/** KEYS: client's log. ARGV: log policy ('<ttl seconds>:<max entries>'), then the entry's field/value pairs. */
export const RECORD_TRANSACTION = `${PRELUDE}
local fields = {}
for i = 2, #ARGV do fields[i - 1] = ARGV[i] end
append_log(KEYS[1], ARGV[1], fields)
return false
`;

/**
 * KEYS: the PaymentIntent's reversals hash, its credited marker. ARGV: reversal key, amount, ttl seconds,
 * key prefix (the credited client's hash is '<prefix>client:<id>', named by the marker), legacy currency.
 * The reversals hash holds 'k:<reversal key>' = units and 'total' = their sum (saturating at 2^53 - 1).
 * A marker written before balances had a currency is a string, '<amount> <client id>' or (older, no cap)
 * '<client id>', and names the legacy currency.
 * Returns { '1' | '0' (changed), taken, client id or '', currency or '', balance or '' }.
 */
export const REVERSE_TOP_UP = `${PRELUDE}
local field, amount, ttl, prefix, legacy = 'k:' .. ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local kind = redis.call('TYPE', KEYS[2]).ok
local units, client, currency = nil, '', ''
if kind == 'hash' then
  local marker = redis.call('HMGET', KEYS[2], 'client', 'currency', 'amount')
  if not marker[1] or not marker[2] or not tonumber(marker[3]) then
    return redis.error_reply('CREDIT402_MARKER ' .. KEYS[2] .. ' lacks its client, currency or amount')
  end
  client, currency, units = marker[1], marker[2], tonumber(marker[3])
elseif kind == 'string' then
  local marker = redis.call('GET', KEYS[2])
  local space = string.find(marker, ' ', 1, true)
  if space then units, client = tonumber(string.sub(marker, 1, space - 1)), string.sub(marker, space + 1)
  else client = marker end
  currency = legacy
end
local key = prefix .. 'client:' .. client
if client ~= '' then migrate(key, legacy) end
local function balance()
  if client == '' then return '' end
  return balance_of(key, currency)
end
local previous = tonumber(redis.call('HGET', KEYS[1], field) or '0')
if amount <= previous then return { '0', '0', client, currency, balance() } end
local before = tonumber(redis.call('HGET', KEYS[1], 'total') or '0')
local after = math.min(MAX_SAFE, before + amount - previous)
redis.call('HSET', KEYS[1], field, ARGV[2], 'total', int(after))
redis.call('EXPIRE', KEYS[1], ttl)
if client == '' then return { '1', '0', '', '', '' } end
local taken = after - before
if units then taken = math.min(units, after) - math.min(units, before) end
if taken > 0 then redis.call('HINCRBY', key, balance_field(currency), int(-taken)) end
return { '1', int(taken), client, currency, balance() }
`;

/**
 * KEYS: a key pinned once per prefix (the legacy currency, the store id). ARGV: the value to pin. Pins it unless
 * pinned; returns the pinned one.
 */
export const PIN_ONCE = `
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
`;

/** KEYS: lock. ARGV: token. Deletes the lock only when it holds `token`; returns 1 when deleted. */
export const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
