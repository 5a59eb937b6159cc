// Schema version 4 of the Postgres store: applied refund ids, so that a refund retried after a failure applies once.

/**
 * Version 4 in the schema `s` (already quoted):
 * - `refunds`: the id of each applied refund per client, kept until `expires_at` (ms since the epoch, the server's
 *   clock); expired rows are deleted a hundred at a time by later refunds.
 * - `refund_deduction_once`: `refund_deduction` (version 3) once per (client, `p_refund_id`): it first claims the id
 *   (new, or expired) for `p_ttl_ms`; a concurrent claim of the same id waits for the first to commit or roll back,
 *   then finds it kept. A kept id changes nothing: `applied` false and the current balance in the currency (0 when
 *   none). A failure (an overflow: 22003) rolls the claim back with the rest.
 */
export function version4(s: string): string {
  return `
CREATE TABLE ${s}.refunds (
  client_id  text   NOT NULL,
  refund_id  text   NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (client_id, refund_id)
);
CREATE INDEX refunds_by_expiry ON ${s}.refunds (expires_at);

CREATE FUNCTION ${s}.refund_deduction_once(
  p_client text, p_currency text, p_amount bigint, p_record_id text, p_request_id text, p_refund_id text, p_ttl_ms bigint,
  OUT applied boolean, OUT new_balance bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_now bigint := ${s}.now_ms();
BEGIN
  DELETE FROM ${s}.refunds WHERE (client_id, refund_id) IN (
    SELECT r.client_id, r.refund_id FROM ${s}.refunds r
      WHERE r.expires_at <= v_now ORDER BY r.expires_at LIMIT 100 FOR UPDATE SKIP LOCKED);
  INSERT INTO ${s}.refunds AS kept (client_id, refund_id, expires_at) VALUES (p_client, p_refund_id, v_now + p_ttl_ms)
    ON CONFLICT (client_id, refund_id) DO UPDATE SET expires_at = excluded.expires_at WHERE kept.expires_at <= v_now
    RETURNING true INTO applied;
  IF applied IS NULL THEN
    applied := false;
    SELECT b.balance INTO new_balance FROM ${s}.balances b WHERE b.client_id = p_client AND b.currency = p_currency;
    new_balance := COALESCE(new_balance, 0);
    RETURN;
  END IF;
  new_balance := ${s}.refund_deduction(p_client, p_currency, p_amount, p_record_id, p_request_id);
END
$fn$;
`;
}
