// Schema version 3 of the Postgres store: the store's id, the refund of a deduction, and the deadline check of deductions.
import { randomUUID } from 'node:crypto';

/** The SQLSTATE `within_budget` raises: the statement outlasted its caller's deadline, and everything it did is rolled back. */
export const LATE_SQLSTATE = 'C4L8T';

/**
 * Version 3 in the schema `s` (already quoted):
 * - `store`: one row, the store's random id (CR-7.16), made once by this migration (a UUID made here: a literal of hex
 *   digits and hyphens, and no server function that PostgreSQL 11 or 12 lacks).
 * - `refund_deduction`: gives a deduction back in one call: the amount to the balance (as `add_balance`: 22003, changing
 *   nothing, past 2^53 − 1), the client's newest record `p_record_id` deleted and the kept request id `p_request_id`
 *   forgotten, so that the next deduction with that id deducts again and the log reads as if it never happened.
 * - `within_budget`: true while the current statement has run for at most `p_budget_ms` (NULL: no budget); raises
 *   {@link LATE_SQLSTATE} otherwise. Called in a deduction statement's select list, after its function has run: a
 *   deduction that took longer than its caller could wait is rolled back instead of committed.
 */
export function version3(s: string): string {
  return `
CREATE TABLE ${s}.store (
  id text NOT NULL PRIMARY KEY
);
INSERT INTO ${s}.store (id) VALUES ('${randomUUID()}');

CREATE FUNCTION ${s}.refund_deduction(
  p_client text, p_currency text, p_amount bigint, p_record_id text, p_request_id text, OUT new_balance bigint
) LANGUAGE plpgsql AS $fn$
BEGIN
  new_balance := ${s}.add_balance(p_client, p_currency, p_amount);
  IF p_record_id IS NOT NULL THEN
    DELETE FROM ${s}.transactions WHERE seq = (
      SELECT t.seq FROM ${s}.transactions t WHERE t.client_id = p_client AND t.id = p_record_id ORDER BY t.seq DESC LIMIT 1);
  END IF;
  IF p_request_id IS NOT NULL THEN
    DELETE FROM ${s}.deduction_requests WHERE client_id = p_client AND request_id = p_request_id;
  END IF;
END
$fn$;

CREATE FUNCTION ${s}.within_budget(p_budget_ms bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  IF p_budget_ms IS NOT NULL AND clock_timestamp() - statement_timestamp() > p_budget_ms * interval '1 millisecond' THEN
    RAISE EXCEPTION 'the deduction outlasted its caller''s deadline (% ms)', p_budget_ms USING ERRCODE = '${LATE_SQLSTATE}';
  END IF;
  RETURN true;
END
$fn$;
`;
}
