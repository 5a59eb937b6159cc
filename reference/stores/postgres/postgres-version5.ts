// Schema version 5 of the Postgres store: claims of a kept request id's one repeat, used up only once confirmed (CR-6.9).
import { batchFunction, DEDUCT_ARRAYS } from './postgres-deduct-batch.ts';

/** The arrays of `deduct_batch_claiming`: those of `deduct_batch` with the claim's two after the ttls, as `deduct_claiming` takes them. */
const CLAIMING_ARRAYS = [...DEDUCT_ARRAYS.slice(0, 6), ['p_claim_ids', 'text'], ['p_leases_ms', 'bigint'], ...DEDUCT_ARRAYS.slice(6)] as const;

/** The twelve parameters of `deduct_claiming`, in order, as `deductParameters` (postgres-deduct-batch.ts) sends them. */
const PARAMETERS = `p_client text, p_currency text, p_amount bigint,
  p_request_id text, p_fingerprint text, p_ttl_ms bigint, p_claim_id text, p_lease_ms bigint,
  p_record_id text, p_record_created_at text, p_record_payment_intent text, p_record_resource text`;

/**
 * Version 5 in the schema `s` (already quoted):
 * - `deduction_requests` gains `claim_id` and `claim_until` (ms since the epoch, the server's clock): the call whose
 *   claim of the repeat holds until then; both NULL while nobody claimed it.
 * - `deduct_claiming`: `deduct` (version 1) with a claim (`p_claim_id` and `p_lease_ms`, both NULL for none). A kept,
 *   unexpired id of the same fingerprint whose repeat is unused answers `repeated` and records the claim, unless
 *   another claim still holds (`busy`); a used repeat or another fingerprint is `conflict`. The kept row is locked
 *   (FOR UPDATE): of concurrent claims one wins, the others then read its claim. An id that is not kept goes to
 *   `deduct` (a concurrent first deduction of the same id there is answered as `deduct` answers it).
 * - `deduct_batch_claiming`: `deduct_batch` (version 2) over `deduct_claiming`, with the claim's two arrays.
 * - `confirm_repeat`: uses the repeat up when the claim is its latest one and the id is kept; otherwise nothing.
 */
export function version5(s: string): string {
  return `
ALTER TABLE ${s}.deduction_requests ADD COLUMN claim_id text, ADD COLUMN claim_until bigint;

${deductClaimingFunction(s, 'CREATE', '')}
${batchFunction(s, 'deduct_batch_claiming', 'deduct_claiming', CLAIMING_ARRAYS)}
CREATE FUNCTION ${s}.confirm_repeat(p_client text, p_request_id text, p_claim_id text) RETURNS boolean
LANGUAGE sql AS $fn$
  UPDATE ${s}.deduction_requests SET repeated = true
    WHERE client_id = p_client AND request_id = p_request_id AND claim_id = p_claim_id AND expires_at > ${s}.now_ms()
  RETURNING true
$fn$;
`;
}

/**
 * `deduct_claiming` in the schema `s` (see {@link version5}), made by `verb` (`CREATE`, or `CREATE OR REPLACE` for a later
 * version's body); `beforeLook` is plpgsql run first when the call claims (version 6 waits there for a concurrent keeper).
 */
export function deductClaimingFunction(s: string, verb: 'CREATE' | 'CREATE OR REPLACE', beforeLook: string): string {
  return `${verb} FUNCTION ${s}.deduct_claiming(
  ${PARAMETERS},
  OUT outcome text, OUT new_balance bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_now bigint := ${s}.now_ms();
  v_kept record;
BEGIN
  IF p_request_id IS NOT NULL AND p_claim_id IS NOT NULL THEN${beforeLook}
    SELECT k.fingerprint, k.repeated, k.claim_until INTO v_kept FROM ${s}.deduction_requests k
      WHERE k.client_id = p_client AND k.request_id = p_request_id AND k.expires_at > v_now FOR UPDATE;
    IF FOUND THEN
      IF v_kept.fingerprint <> p_fingerprint OR v_kept.repeated THEN
        outcome := 'conflict';
      ELSIF v_kept.claim_until IS NOT NULL AND v_kept.claim_until > v_now THEN
        outcome := 'busy';
      ELSE
        UPDATE ${s}.deduction_requests SET claim_id = p_claim_id, claim_until = v_now + p_lease_ms
          WHERE client_id = p_client AND request_id = p_request_id;
        outcome := 'repeated';
        new_balance := COALESCE((SELECT b.balance FROM ${s}.balances b WHERE b.client_id = p_client AND b.currency = p_currency), 0);
      END IF;
      RETURN;
    END IF;
  END IF;
  SELECT d.outcome, d.new_balance INTO outcome, new_balance FROM ${s}.deduct(
    p_client, p_currency, p_amount, p_request_id, p_fingerprint, p_ttl_ms,
    p_record_id, p_record_created_at, p_record_payment_intent, p_record_resource) d;
END
$fn$;
`;
}
