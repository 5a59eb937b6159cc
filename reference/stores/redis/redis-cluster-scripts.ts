// Lua sources of the Redis store's top-ups and reversals on a Redis Cluster: two single-slot steps each, in place of one script that touches a client and a PaymentIntent.
//
// On a cluster a script may only touch keys of one hash slot (ClusterKeys: a client's keys share one, a
// PaymentIntent's keys another). A credit and a reversal need both, so each runs as a PaymentIntent step and a
// client step, two scripts. Keys (see ClusterKeys):
//   PaymentIntent slot  credited  { client, currency, amount }   the claim: who the PaymentIntent is credited to
//                       reversals { k:<key> = units, total = R }  as on one server; R only ever rises
//   client slot         credit:<pi> { currency, amount, reversed = A }  'amount' present: the credit is applied
//
// creditTopUp(X, pi): (1) CLAIM_CREDIT in the PaymentIntent slot writes the claim { X, currency, U } unless there is
// one, and answers the claim that holds (this one or an earlier one) and the current R. (2) APPLY_CREDIT in the slot
// of the claimed client applies it unless `credit:<pi>` has its amount: balance += U − min(U, max(R, A)), top_ups + 1,
// the topup record, credit:<pi> = { currency, U, A = max(R, A) }, all in that one script.
// reverseTopUp(pi): (1) RECORD_REVERSAL in the PaymentIntent slot raises the key and R as on one server, and answers
// R and the claim, if any. (2) With a claim, SETTLE_REVERSAL in the claimed client's slot raises A to R and, when the
// credit is applied, takes min(U, R) − min(U, A_before) from the balance; before the credit is applied it only
// raises A, which APPLY_CREDIT then subtracts.
//
// Invariants (each step is atomic in its slot; a process may die between the two steps of a call):
//   I1  A claim never changes once written (until it expires), so every client step of a PaymentIntent goes to the
//       one claimed client, with the one claimed U and currency.
//   I2  The client has gained U − min(U, A) from the PaymentIntent once credit:<pi> has its amount, and nothing
//       before; the amount is written in the same script as the balance, top_ups and the record, and APPLY_CREDIT
//       does nothing when it is there. So a PaymentIntent is credited at most once, whatever the retries, the races
//       and the callers (all end in the one claimed client's slot).
//   I3  A ≤ R at all times (every A written is an R read from the PaymentIntent slot, and R never falls), and A
//       only rises; the balance change of a step is min(U, A_after) − min(U, A_before), so steps that repeat or
//       arrive out of order take nothing twice, and reversals never take more than U.
//   I4  Exactly once: a claim whose client step did not run (a crash between the steps, or an overflow) is
//       credited by the next creditTopUp of that PaymentIntent, whatever client it names (it ends in the claimed
//       one), e.g. the retried charge, the webhook's redelivery or reconciliation; until then `hasCredit` is false
//       (it asks the client slot) and reverseTopUp answers it as not credited yet.
//   I5  A call that returns has left A at least at the R it read (a reversal recorded before the claim is in the
//       R the claim reads). So once the credit is applied and every call that raised R has returned, A = R, and the client has lost exactly
//       min(U, R) to the PaymentIntent's reversals. A reversal whose client step did not run (a crash) is settled
//       by the next reverseTopUp of that PaymentIntent (its redelivery raises nothing, but still settles) or its
//       next creditTopUp.
import { PRELUDE } from './redis-prelude.ts';

/** Raises A of credit:<pi> to `total`; once the credit is applied, takes the difference, capped at its amount, from the balance. */
const SETTLE = `
-- Returns the units taken (0 when A was already at total, or the credit is not applied yet).
local function settle(client, credit, total, ttl)
  local state = redis.call('HMGET', credit, 'currency', 'amount', 'reversed')
  local reversed = tonumber(state[3] or '0')
  if total <= reversed then return 0 end
  redis.call('HSET', credit, 'reversed', int(total))
  redis.call('EXPIRE', credit, ttl)
  if not state[2] then return 0 end
  local units = tonumber(state[2])
  local taken = math.min(units, total) - math.min(units, reversed)
  if taken > 0 then redis.call('HINCRBY', client, balance_field(state[1]), int(-taken)) end
  return taken
end
`;

/** The claim's fields, or an error reply naming a claim that lacks one. */
const READ_CLAIM = `
local function read_claim(key)
  local claim = redis.call('HMGET', key, 'client', 'currency', 'amount')
  if not claim[1] then return nil end
  if not claim[2] or not tonumber(claim[3]) then
    return redis.error_reply('CREDIT402_MARKER ' .. key .. ' lacks its client, currency or amount')
  end
  return claim
end
`;

/**
 * PaymentIntent slot. KEYS: credited (the claim), reversals. ARGV: client id, currency, amount, ttl seconds.
 * Writes the claim unless there is one. Returns { '1' (claimed now) | '0', client, currency, amount, R }.
 */
export const CLAIM_CREDIT = `${READ_CLAIM}
local total = redis.call('HGET', KEYS[2], 'total') or '0'
local claim = read_claim(KEYS[1])
if claim then
  if claim.err then return claim end
  return { '0', claim[1], claim[2], claim[3], total }
end
redis.call('HSET', KEYS[1], 'client', ARGV[1], 'currency', ARGV[2], 'amount', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return { '1', ARGV[1], ARGV[2], ARGV[3], total }
`;

/**
 * Client slot. KEYS: the claimed client, its credit:<pi>, its log. ARGV: the claim's currency, amount, R, now, ttl
 * seconds, record ('1' or '0'), transaction id, PaymentIntent id, the claimed client id, legacy currency, the
 * currency of the balance to answer, log policy ('<ttl seconds>:<max entries>', append_log's). Applies the claim unless applied; an applied one only settles R.
 * Returns { '1' (applied now) | '0', balance in the answer currency }.
 */
export const APPLY_CREDIT = `${PRELUDE}${SETTLE}
local client, credit, currency, amount, now, ttl = KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[4], tonumber(ARGV[5])
local total = tonumber(ARGV[3])
migrate(client, ARGV[10])
local state = redis.call('HMGET', credit, 'amount', 'reversed')
if state[1] then
  settle(client, credit, total, ttl)
  return { '0', balance_of(client, ARGV[11]) }
end
total = math.max(total, tonumber(state[2] or '0'))
local net = int(tonumber(amount) - math.min(tonumber(amount), total))
if overflows(client, currency, net) then return overflow_error(amount) end
redis.call('HSET', credit, 'currency', currency, 'amount', amount, 'reversed', int(total))
redis.call('EXPIRE', credit, ttl)
apply_top_up(client, currency, net, amount, now, KEYS[3], ARGV[12], ARGV[6] == '1' and ARGV[7] or '', ARGV[9], ARGV[8])
return { '1', balance_of(client, ARGV[11]) }
`;

/**
 * PaymentIntent slot. KEYS: reversals, credited (the claim). ARGV: reversal key, amount, ttl seconds. Raises the key
 * and R as REVERSE_TOP_UP does on one server. Returns { '1' (raised) | '0', R } and, with a claim, its client,
 * currency and amount.
 */
export const RECORD_REVERSAL = `${PRELUDE}${READ_CLAIM}
local field, amount = 'k:' .. ARGV[1], tonumber(ARGV[2])
local previous = tonumber(redis.call('HGET', KEYS[1], field) or '0')
local changed = '0'
if amount > previous then
  local before = tonumber(redis.call('HGET', KEYS[1], 'total') or '0')
  redis.call('HSET', KEYS[1], field, ARGV[2], 'total', int(math.min(MAX_SAFE, before + amount - previous)))
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
  changed = '1'
end
local total = redis.call('HGET', KEYS[1], 'total') or '0'
local claim = read_claim(KEYS[2])
if not claim then return { changed, total } end
if claim.err then return claim end
return { changed, total, claim[1], claim[2], claim[3] }
`;

/**
 * Client slot. KEYS: the claimed client, its credit:<pi>. ARGV: R, ttl seconds, legacy currency. Settles R.
 * Returns { '1' (the credit is applied) | '0', taken, currency, balance in it ('' before the credit is applied) }.
 */
export const SETTLE_REVERSAL = `${PRELUDE}${SETTLE}
migrate(KEYS[1], ARGV[3])
local taken = settle(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]))
local state = redis.call('HMGET', KEYS[2], 'currency', 'amount')
if not state[2] then return { '0', '0', '', '' } end
return { '1', int(taken), state[1], balance_of(KEYS[1], state[1]) }
`;

/** Client slot. KEYS: client. ARGV: currency, legacy currency. Returns the balance in that currency ('0' when none). */
export const BALANCE = `${PRELUDE}
migrate(KEYS[1], ARGV[2])
return balance_of(KEYS[1], ARGV[1])
`;
