// Lua sources of the Redis store's deductions: one deduction (DEDUCT), or the deductions of one event-loop turn in order (DEDUCT_BATCH).
import { PRELUDE } from './redis-prelude.ts';

/**
 * The deduction both scripts run, after PRELUDE: `request` is nil without a request id; `log_policy` is '' when no record
 * is appended (else append_log's '<ttl seconds>:<max entries>'), whose field/value pairs are then ARGV[first_field .. last_field]; `deadline` is '' or the server time
 * (ms) after which the deduction is refused as { 'late' } before it reads or writes anything: its caller has stopped
 * waiting, so neither money nor the request id's one repeat may go to an answer nobody reads. Its checks (kept request, existence,
 * balance) come before its writes, and the writes go log entry, balance, kept request: a write that fails leaves at
 * most a log entry without its charge, never a charge without its entry or its answer.
 * `seen` is what the script already learnt, shared by the deductions of one batch, so that only the first deduction of
 * a client reads what cannot have changed since: `migrated` and `exists` (client keys: migrated, seen to exist; a
 * script never deletes a client), `balances` (three-letter currency .. client key: the balance as text, updated by each HINCRBY of
 * the script, the only writer of balances while it runs), and append_log's time and expiries (redis-prelude.ts).
 */
const DEDUCT_FUNCTION = `
local function new_seen()
  return { migrated = {}, exists = {}, balances = {}, expires = {} }
end
local function seen_balance(seen, client, currency)
  local key = currency .. client
  local balance = seen.balances[key]
  if not balance then
    balance = balance_of(client, currency)
    seen.balances[key] = balance
  end
  return balance
end
-- A kept request: '0' .. fingerprint (repeat unused), '1' .. fingerprint (used), or '2' .. until .. ' ' .. claim .. ' ' ..
-- fingerprint (claimed by the call named claim until the server time until, in ms). Returns state, fingerprint, until, claim.
local function read_kept(kept)
  local state, rest = string.sub(kept, 1, 1), string.sub(kept, 2)
  if state ~= '2' then return state, rest, nil, nil end
  local first = string.find(rest, ' ', 1, true)
  local second = string.find(rest, ' ', first + 1, true)
  return state, string.sub(rest, second + 1), tonumber(string.sub(rest, 1, first - 1)), string.sub(rest, first + 1, second - 1)
end
local function repeat_of(seen, request, kept, fingerprint, claim, lease)
  local state, kept_fingerprint, claimed_until = read_kept(kept)
  if state == '1' or kept_fingerprint ~= fingerprint then return 'conflict' end
  if claim == '' then
    redis.call('SET', request, '1' .. kept_fingerprint, 'KEEPTTL')
    return 'repeated'
  end
  local now = now_ms(seen)
  if claimed_until and claimed_until > now then return 'busy' end
  redis.call('SET', request, '2' .. string.format('%d', now + tonumber(lease)) .. ' ' .. claim .. ' ' .. kept_fingerprint, 'KEEPTTL')
  return 'repeated'
end
local function deduct(seen, client, log, request, currency, amount, legacy, log_policy, request_ttl, fingerprint, claim, lease, deadline, first_field, last_field)
  if deadline ~= '' and now_ms(seen) > tonumber(deadline) then return { 'late' } end
  if not seen.migrated[client] then
    migrate(client, legacy)
    seen.migrated[client] = true
  end
  if request then
    local kept = redis.call('GET', request)
    if kept then
      local outcome = repeat_of(seen, request, kept, fingerprint, claim, lease)
      if outcome ~= 'repeated' then return { outcome } end
      return { 'repeated', seen_balance(seen, client, currency) }
    end
  end
  if not seen.exists[client] then
    if redis.call('EXISTS', client) == 0 then return { 'insufficient' } end
    seen.exists[client] = true
  end
  local balance = seen_balance(seen, client, currency)
  if tonumber(balance) < tonumber(amount) then return { 'insufficient' } end
  if log_policy ~= '' then
    local fields = {}
    for i = first_field, last_field do fields[#fields + 1] = ARGV[i] end
    append_log(log, log_policy, fields, seen)
  end
  if amount ~= '0' then
    local after = redis.call('HINCRBY', client, balance_field(currency), '-' .. amount)
    -- The reply is exact as a double within 2^53; beyond (never written by this store), read the stored text.
    if after >= -MAX_SAFE and after <= MAX_SAFE then balance = int(after) else balance = balance_of(client, currency) end
    seen.balances[currency .. client] = balance
  end
  if request then redis.call('SET', request, '0' .. fingerprint, 'PX', request_ttl) end
  return { 'deducted', balance }
end
`;

/**
 * KEYS: client, client's log, and the kept-request key when the deduction has a request id.
 * ARGV: currency, amount, legacy currency, log policy ('<ttl seconds>:<max entries>'; '' when no record is appended), request ttl ms,
 * fingerprint, repeat claim id and claim lease ms ('' when there is no request id or no claim), deadline (server ms, or
 * ''), then the record's field/value pairs. The kept request is a string that expires after the request ttl:
 * '<0 | 1 (repeated)><fingerprint>', or while a call's claim of the repeat holds (CR-6.9)
 * '2<until, server ms> <claim id> <fingerprint>' (CONFIRM_REPEAT turns it into '1<fingerprint>').
 * Returns { 'deducted' | 'repeated', balance } or { 'insufficient' | 'busy' | 'conflict' | 'late' }; a negative balance is
 * insufficient for every amount, 0 included, and a currency never held is a balance of 0.
 */
export const DEDUCT = `${PRELUDE}${DEDUCT_FUNCTION}
return deduct(new_seen(), KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], 10, #ARGV)
`;

/**
 * KEYS: the kept-request key. ARGV: the claim id. Turns a kept request claimed by that id into a used one ('1' ..
 * fingerprint), keeping its expiry; anything else is left as it is. Returns 1 when it confirmed, else 0.
 */
export const CONFIRM_REPEAT = `
local kept = redis.call('GET', KEYS[1])
if not kept or string.sub(kept, 1, 1) ~= '2' then return 0 end
local rest = string.sub(kept, 2)
local first = string.find(rest, ' ', 1, true)
local second = string.find(rest, ' ', first + 1, true)
if string.sub(rest, first + 1, second - 1) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], '1' .. string.sub(rest, second + 1), 'KEEPTTL')
return 1
`;

/** How many ARGV entries come before each deduction's record fields in {@link DEDUCT_BATCH}. */
const BATCH_HEADER_LENGTH = 9;

/**
 * N deductions, in order, each with exactly DEDUCT's semantics and reply, in one script call.
 * KEYS: per deduction, its client, its client's log, and its kept-request key when it has a request id.
 * ARGV: the legacy currency, then per deduction a header of {@link BATCH_HEADER_LENGTH}: currency, amount, log
 * policy ('' when no record), request ttl ms ('' when no request id: then it has no third key), fingerprint, repeat
 * claim id, claim lease ms, deadline (server ms, or ''), the record's field count n; then those n field/value entries. The server's time is read once,
 * so every deadline of the batch is checked against the same instant.
 * Returns one reply per deduction: DEDUCT's, or { 'error', message } when that deduction raised an error.
 *
 * Why no deduction can be applied without its answer saying so (Redis does not roll a script back):
 * - The layout (counts, keys) is checked in full before the first deduction runs; a malformed batch is an error
 *   reply that wrote nothing, so the caller may reject every deduction of it.
 * - Each deduction runs under `pcall`: an error in one (WRONGTYPE on its keys, OOM before the script's first write)
 *   leaves what the same error leaves in DEDUCT — its checks come before its writes, and at worst a log entry without
 *   its charge — and becomes that deduction's { 'error' } reply; the deductions before it keep their replies and
 *   those after it still run, as they would one call at a time. No code outside `pcall` can fail after a write.
 * - Whatever fails the call as a whole after the script ran (a lost connection, a lost reply) leaves the outcome of
 *   every deduction unknown, as it leaves a lone DEDUCT's: callers get an error, never a false 'insufficient'.
 * - A Redis crash mid-script loses the whole batch: its effects reach the AOF and replicas as one MULTI/EXEC, after it.
 */
export const DEDUCT_BATCH = `${PRELUDE}${DEDUCT_FUNCTION}
local legacy, plan, a, k, seen = ARGV[1], {}, 2, 1, new_seen()
while a <= #ARGV do
  local count = tonumber(ARGV[a + ${BATCH_HEADER_LENGTH - 1}])
  local keys = (ARGV[a + 3] ~= nil and ARGV[a + 3] ~= '') and 3 or 2
  if not count or count < 0 or count % 1 ~= 0 or a + ${BATCH_HEADER_LENGTH - 1} + count > #ARGV or k + keys - 1 > #KEYS then
    return redis.error_reply('CREDIT402_BATCH malformed deduction at ARGV ' .. a)
  end
  plan[#plan + 1] = { k, a, count, keys == 3 }
  a, k = a + ${BATCH_HEADER_LENGTH} + count, k + keys
end
if k - 1 ~= #KEYS then return redis.error_reply('CREDIT402_BATCH ' .. #KEYS .. ' keys for ' .. (k - 1)) end
local replies = {}
for i, step in ipairs(plan) do
  local k, a = step[1], step[2]
  local ok, reply = pcall(deduct, seen, KEYS[k], KEYS[k + 1], step[4] and KEYS[k + 2] or nil, ARGV[a], ARGV[a + 1], legacy,
    ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7], a + ${BATCH_HEADER_LENGTH}, a + ${BATCH_HEADER_LENGTH - 1} + step[3])
  if ok then replies[i] = reply
  elseif type(reply) == 'table' and reply.err then replies[i] = { 'error', reply.err }
  else replies[i] = { 'error', tostring(reply) } end
end
return replies
`;
