// Schema version 8 of the Postgres store: a refund and its request id's repeat exclude each other (CR-6.9), whichever comes second seeing the first.
import { deductFunction } from './postgres-functions.ts';

/**
 * Version 8 in the schema `s` (already quoted):
 * - `refund_deduction_unless_repeated`: `refund_deduction_once` (version 4) that first looks at the kept request id.
 *   A kept refund id changes nothing: `refunded` (applied before) and the current balance. Otherwise, once the kept
 *   request id's one repeat was answered (`repeated`, used; or `claim_id` set, claimed, whether the claim holds or
 *   lapsed), it changes nothing, keeps no refund id and answers `superseded` and the current balance: the deduction
 *   paid for that repeat. Otherwise it gives the deduction back as version 4 does: `refunded` and the new balance. It
 *   locks the balance row (as `refund_deduction` did first, so the lock order stays balance, then kept request) and
 *   then the kept request row (FOR UPDATE): a concurrent claim of the repeat (`deduct_claiming` locks the same row)
 *   either commits first, and the refund reads its claim, or waits, and then finds the id forgotten and deducts anew.
 *   Version 4's function stays for a process still running the code of version 7.
 * - `deduct`, replaced: an expired request id kept again starts unclaimed (its claim columns cleared, as a new id's),
 *   so that a refund of the new deduction is not superseded by a claim of the old one.
 */
export function version8(s: string): string {
  return `
${deductFunction(s, 'CREATE OR REPLACE', true)}
CREATE OR REPLACE FUNCTION ${s}.refund_deduction_unless_repeated(
  p_client text, p_currency text, p_amount bigint, p_record_id text, p_request_id text, p_refund_id text, p_ttl_ms bigint,
  OUT outcome text, OUT new_balance bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_now bigint := ${s}.now_ms();
  v_kept boolean;
  v_answered boolean;
BEGIN
  DELETE FROM ${s}.refunds WHERE (client_id, refund_id) IN (
    SELECT r.client_id, r.refund_id FROM ${s}.refunds r
      WHERE r.expires_at <= v_now ORDER BY r.expires_at LIMIT 100 FOR UPDATE SKIP LOCKED);
  -- Claim the refund id: a concurrent call with the same id waits here until this one commits or rolls back.
  INSERT INTO ${s}.refunds AS kept (client_id, refund_id, expires_at) VALUES (p_client, p_refund_id, v_now + p_ttl_ms)
    ON CONFLICT (client_id, refund_id) DO UPDATE SET expires_at = excluded.expires_at WHERE kept.expires_at <= v_now
    RETURNING true INTO v_kept;
  IF v_kept IS NULL THEN
    outcome := 'refunded';
    new_balance := COALESCE((SELECT b.balance FROM ${s}.balances b WHERE b.client_id = p_client AND b.currency = p_currency), 0);
    RETURN;
  END IF;
  IF p_request_id IS NOT NULL THEN
    PERFORM 1 FROM ${s}.balances b WHERE b.client_id = p_client AND b.currency = p_currency FOR UPDATE;
    SELECT k.repeated OR k.claim_id IS NOT NULL INTO v_answered FROM ${s}.deduction_requests k
      WHERE k.client_id = p_client AND k.request_id = p_request_id AND k.expires_at > v_now FOR UPDATE;
    IF v_answered THEN
      DELETE FROM ${s}.refunds WHERE client_id = p_client AND refund_id = p_refund_id;
      outcome := 'superseded';
      new_balance := COALESCE((SELECT b.balance FROM ${s}.balances b WHERE b.client_id = p_client AND b.currency = p_currency), 0);
      RETURN;
    END IF;
  END IF;
  new_balance := ${s}.refund_deduction(p_client, p_currency, p_amount, p_record_id, p_request_id);
  outcome := 'refunded';
END
$fn$;
`;
}
