// The Postgres store's plpgsql functions: each multi-step operation is one function, called in one statement (one round trip).
// Every function runs in the caller's single-statement transaction (autocommit, READ COMMITTED); each statement inside
// takes a fresh snapshot, row locks (ON CONFLICT, UPDATE … WHERE, FOR UPDATE) make concurrent calls wait for and then
// see each other, and an exception rolls the whole call back.

const MAX = '9007199254740991';

/**
 * plpgsql statements adding `amount` (a variable of the function) to the balance of (p_client, p_currency), creating
 * it when missing, into `new_balance`; past 2^53 - 1 they raise 22003, which rolls the whole call back.
 */
function addToBalance(s: string, amount: string): string {
  return `  INSERT INTO ${s}.balances AS b (client_id, currency, balance) VALUES (p_client, p_currency, ${amount})
    ON CONFLICT (client_id, currency) DO UPDATE SET balance = b.balance + excluded.balance
      WHERE b.balance <= ${MAX} - excluded.balance
    RETURNING b.balance INTO new_balance;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'adding % to client % would exceed Number.MAX_SAFE_INTEGER', ${amount}, p_client USING ERRCODE = '22003';
  END IF;`;
}

/**
 * `deduct` in the schema `s` (already quoted), made by `verb` (`CREATE` in version 1, `CREATE OR REPLACE` in version 8).
 * Deducts from (client, currency) when the balance covers the amount, appends the deduction record (p_record_id not
 * NULL) and keeps the request id (p_request_id not NULL): a kept, unexpired id answers its first repeat with the same
 * fingerprint ('repeated') and every other call ('conflict'); a failed deduction keeps nothing. With `resetsClaims`
 * (version 8; the claim columns exist from version 5), an expired id kept again starts unclaimed, as a new one, so that
 * a refund of its deduction sees its repeat unanswered (CR-6.9).
 */
export function deductFunction(s: string, verb: 'CREATE' | 'CREATE OR REPLACE', resetsClaims: boolean): string {
  const resetClaim = resetsClaims ? ', claim_id = NULL, claim_until = NULL' : '';
  return `
${verb} FUNCTION ${s}.deduct(
  p_client text, p_currency text, p_amount bigint,
  p_request_id text, p_fingerprint text, p_ttl_ms bigint,
  p_record_id text, p_record_created_at text, p_record_payment_intent text, p_record_resource text,
  OUT outcome text, OUT new_balance bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_now bigint := ${s}.now_ms();
  v_claimed boolean;
BEGIN
  IF p_request_id IS NOT NULL THEN
    -- Claim the id (new, or expired): a concurrent claim waits here until the first one commits or rolls back.
    INSERT INTO ${s}.deduction_requests AS kept (client_id, request_id, fingerprint, repeated, expires_at)
      VALUES (p_client, p_request_id, p_fingerprint, false, v_now + p_ttl_ms)
      ON CONFLICT (client_id, request_id) DO UPDATE
        SET fingerprint = excluded.fingerprint, repeated = false, expires_at = excluded.expires_at${resetClaim}
        WHERE kept.expires_at <= v_now
      RETURNING true INTO v_claimed;
    IF v_claimed IS NULL THEN
      -- Kept and unexpired (and locked by the ON CONFLICT): one repeat for the same fingerprint, then conflicts.
      UPDATE ${s}.deduction_requests SET repeated = true
        WHERE client_id = p_client AND request_id = p_request_id AND fingerprint = p_fingerprint AND NOT repeated;
      IF FOUND THEN
        outcome := 'repeated';
        new_balance := COALESCE((SELECT b.balance FROM ${s}.balances b WHERE b.client_id = p_client AND b.currency = p_currency), 0);
      ELSE
        outcome := 'conflict';
      END IF;
      RETURN;
    END IF;
  END IF;

  -- The conditional UPDATE rechecks the balance on the newest row version after waiting for its lock: no overdraft.
  UPDATE ${s}.balances b SET balance = b.balance - p_amount
    WHERE b.client_id = p_client AND b.currency = p_currency AND b.balance >= p_amount
    RETURNING b.balance INTO new_balance;
  IF NOT FOUND THEN
    IF p_amount = 0
       AND NOT EXISTS (SELECT 1 FROM ${s}.balances b WHERE b.client_id = p_client AND b.currency = p_currency)
       AND EXISTS (SELECT 1 FROM ${s}.clients c WHERE c.client_id = p_client) THEN
      new_balance := 0; -- amount 0 from a currency never held
    ELSE
      IF p_request_id IS NOT NULL THEN
        DELETE FROM ${s}.deduction_requests WHERE client_id = p_client AND request_id = p_request_id;
      END IF;
      outcome := 'insufficient';
      new_balance := NULL;
      RETURN;
    END IF;
  END IF;

  IF p_record_id IS NOT NULL THEN
    INSERT INTO ${s}.transactions (id, type, client_id, currency, amount, created_at, payment_intent_id, resource)
      VALUES (p_record_id, 'deduction', p_client, p_currency, p_amount, p_record_created_at, p_record_payment_intent, p_record_resource);
  END IF;
  IF p_request_id IS NOT NULL THEN
    -- Forget up to 100 expired ids, skipping any another call holds: pruning never waits.
    DELETE FROM ${s}.deduction_requests WHERE (client_id, request_id) IN (
      SELECT r.client_id, r.request_id FROM ${s}.deduction_requests r
        WHERE r.expires_at <= v_now ORDER BY r.expires_at LIMIT 100 FOR UPDATE SKIP LOCKED);
  END IF;
  outcome := 'deducted';
END
$fn$;
`;
}

/**
 * The functions of schema version 1 in the schema `s` (already quoted) named `name` (a validated identifier, used
 * inside string literals only for advisory lock keys).
 */
export function postgresFunctions(s: string, name: string): string {
  /** The advisory lock key that serialises the credit and the reversals of one PaymentIntent. */
  const paymentIntentLock = (pi: string) => `pg_advisory_xact_lock(hashtextextended('credit402:${name}:payment-intent:' || ${pi}, 0))`;
  return `
CREATE FUNCTION ${s}.now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS $fn$
  SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint
$fn$;

CREATE FUNCTION ${s}.now_iso() RETURNS text LANGUAGE sql VOLATILE AS $fn$
  SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$fn$;

${deductFunction(s, 'CREATE', false)}
-- Creates the client when missing and adds to the balance; raises 22003, changing nothing, past 2^53 - 1.
CREATE FUNCTION ${s}.add_balance(p_client text, p_currency text, p_amount bigint, OUT new_balance bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO ${s}.clients (client_id, top_ups, created_at) VALUES (p_client, 0, ${s}.now_iso())
    ON CONFLICT (client_id) DO NOTHING;
${addToBalance(s, 'p_amount')}
END
$fn$;

-- Credits a PaymentIntent once: marks it, adds the amount less the reversals recorded before it (capped at the
-- amount), counts the top-up and appends the topup record (p_record_id not NULL). Already credited: credited false
-- and the current balance. Raises 22003, changing nothing, past 2^53 - 1.
CREATE FUNCTION ${s}.credit_top_up(
  p_payment_intent text, p_client text, p_currency text, p_amount bigint, p_record_id text,
  OUT credited boolean, OUT new_balance bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_reversed numeric;
  v_net bigint;
BEGIN
  PERFORM ${paymentIntentLock('p_payment_intent')};
  INSERT INTO ${s}.credited_payment_intents (payment_intent_id, client_id, currency, amount)
    VALUES (p_payment_intent, p_client, p_currency, p_amount)
    ON CONFLICT (payment_intent_id) DO NOTHING;
  IF NOT FOUND THEN
    credited := false;
    new_balance := COALESCE((SELECT b.balance FROM ${s}.balances b WHERE b.client_id = p_client AND b.currency = p_currency), 0);
    RETURN;
  END IF;
  SELECT COALESCE(sum(r.amount), 0) INTO v_reversed FROM ${s}.reversals r WHERE r.payment_intent_id = p_payment_intent;
  v_net := p_amount - LEAST(p_amount, v_reversed);
  INSERT INTO ${s}.clients AS c (client_id, top_ups, created_at) VALUES (p_client, 1, ${s}.now_iso())
    ON CONFLICT (client_id) DO UPDATE SET top_ups = c.top_ups + 1;
${addToBalance(s, 'v_net')}
  IF p_record_id IS NOT NULL THEN
    INSERT INTO ${s}.transactions (id, type, client_id, currency, amount, created_at, payment_intent_id, resource)
      VALUES (p_record_id, 'topup', p_client, p_currency, p_amount, ${s}.now_iso(), p_payment_intent, NULL);
  END IF;
  credited := true;
END
$fn$;

-- Raises the reversal p_key of a PaymentIntent to p_amount (never lowers it) and takes what that adds to the
-- PaymentIntent's reversals, within its credited amount, from the credited balance (which may go negative).
CREATE FUNCTION ${s}.reverse_top_up(
  p_payment_intent text, p_key text, p_amount bigint,
  OUT changed boolean, OUT taken bigint, OUT credited_client text, OUT credited_currency text, OUT new_balance bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_units bigint;
  v_previous bigint;
  v_before numeric;
BEGIN
  PERFORM ${paymentIntentLock('p_payment_intent')};
  SELECT c.client_id, c.currency, c.amount INTO credited_client, credited_currency, v_units
    FROM ${s}.credited_payment_intents c WHERE c.payment_intent_id = p_payment_intent;
  SELECT r.amount INTO v_previous FROM ${s}.reversals r WHERE r.payment_intent_id = p_payment_intent AND r.reversal_key = p_key;
  v_previous := COALESCE(v_previous, 0);
  taken := 0;
  changed := p_amount > v_previous;
  IF changed THEN
    SELECT COALESCE(sum(r.amount), 0) INTO v_before FROM ${s}.reversals r WHERE r.payment_intent_id = p_payment_intent;
    INSERT INTO ${s}.reversals AS r (payment_intent_id, reversal_key, amount) VALUES (p_payment_intent, p_key, p_amount)
      ON CONFLICT (payment_intent_id, reversal_key) DO UPDATE SET amount = excluded.amount, updated_at = now();
    IF credited_client IS NOT NULL THEN
      taken := LEAST(v_units, v_before + p_amount - v_previous) - LEAST(v_units, v_before);
      IF taken > 0 THEN
        INSERT INTO ${s}.balances AS b (client_id, currency, balance) VALUES (credited_client, credited_currency, -taken)
          ON CONFLICT (client_id, currency) DO UPDATE SET balance = b.balance + excluded.balance;
      END IF;
    END IF;
  END IF;
  IF credited_client IS NOT NULL THEN
    new_balance := COALESCE((SELECT b.balance FROM ${s}.balances b WHERE b.client_id = credited_client AND b.currency = credited_currency), 0);
  END IF;
END
$fn$;
`;
}
