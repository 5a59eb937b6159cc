// Schema version 7 of the Postgres store: a deduction's deadline on the server's clock, so that a statement held up on its way arrives to do nothing.
import { LATE_SQLSTATE } from './postgres-version3.ts';

/**
 * Version 7 in the schema `s` (already quoted): `within_deadline(p_deadline_ms)`, true while the server's clock
 * (`clock_timestamp()`, ms since the epoch) has not passed `p_deadline_ms` (NULL: no deadline), raising
 * {@link LATE_SQLSTATE} otherwise. The store sends the deadline in the server's clock (server-clock.ts) and calls it in
 * the select list of its deduction and refund statements, after their function has run, instead of `within_budget`
 * (version 3), which measured only the statement's own run: a statement held up on the network or by a stalled
 * server past its caller's deadline was still committed, and its money taken with nobody answered. `CREATE OR
 * REPLACE`: the function has no state, and a schema rebuilt by hand may already hold it.
 */
export function version7(s: string): string {
  return `
CREATE OR REPLACE FUNCTION ${s}.within_deadline(p_deadline_ms bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  IF p_deadline_ms IS NOT NULL AND extract(epoch FROM clock_timestamp()) * 1000 > p_deadline_ms THEN
    RAISE EXCEPTION 'the statement reached the server after its caller''s deadline (% ms since the epoch)', p_deadline_ms
      USING ERRCODE = '${LATE_SQLSTATE}';
  END IF;
  RETURN true;
END
$fn$;
`;
}
