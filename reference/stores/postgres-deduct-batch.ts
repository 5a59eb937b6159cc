// Group commit of the Postgres store's deductions: the deductions of one event-loop turn in one statement, so one commit.
import type { Deduction } from './store.ts';
import { sqlStateOf } from './postgres-error.ts';

/**
 * Schema version 2: `deduct_batch`, which runs `deduct` (postgres-functions.ts) for each deduction of the arrays,
 * in array order, inside the caller's one statement: one transaction, one commit, one WAL flush for the batch.
 * Every array has one element per deduction (NULL where `deduct` takes NULL); arrays of different lengths raise
 * 22023 and change nothing. Returns one row per deduction: its 1-based position, outcome and new balance.
 */
export function deductBatchFunction(s: string): string {
  return `
CREATE FUNCTION ${s}.deduct_batch(
  p_clients text[], p_currencies text[], p_amounts bigint[],
  p_request_ids text[], p_fingerprints text[], p_ttls_ms bigint[],
  p_record_ids text[], p_record_created_at text[], p_record_payment_intents text[], p_record_resources text[]
) RETURNS TABLE (ord integer, outcome text, new_balance bigint) LANGUAGE plpgsql AS $fn$
DECLARE
  v_count integer := COALESCE(cardinality(p_clients), 0);
BEGIN
  IF cardinality(p_currencies) IS DISTINCT FROM v_count OR cardinality(p_amounts) IS DISTINCT FROM v_count
     OR cardinality(p_request_ids) IS DISTINCT FROM v_count OR cardinality(p_fingerprints) IS DISTINCT FROM v_count
     OR cardinality(p_ttls_ms) IS DISTINCT FROM v_count OR cardinality(p_record_ids) IS DISTINCT FROM v_count
     OR cardinality(p_record_created_at) IS DISTINCT FROM v_count
     OR cardinality(p_record_payment_intents) IS DISTINCT FROM v_count
     OR cardinality(p_record_resources) IS DISTINCT FROM v_count THEN
    RAISE EXCEPTION 'deduct_batch: the arrays must all have % elements', v_count USING ERRCODE = '22023';
  END IF;
  FOR i IN 1 .. v_count LOOP
    ord := i;
    SELECT d.outcome, d.new_balance INTO outcome, new_balance FROM ${s}.deduct(
      p_clients[i], p_currencies[i], p_amounts[i], p_request_ids[i], p_fingerprints[i], p_ttls_ms[i],
      p_record_ids[i], p_record_created_at[i], p_record_payment_intents[i], p_record_resources[i]) d;
    RETURN NEXT;
  END LOOP;
END
$fn$;
`;
}

/** A parameter as sent: text (integers as their exact decimal digits) or NULL. */
type Parameter = string | null;

/**
 * The twelve parameters of `deduct_claiming` (postgres-version5.ts) for `deduction`; `deduct_batch_claiming` takes each
 * as an array, one element per deduction.
 */
export function deductParameters({ clientId, currency, amount, record, request }: Deduction): Parameter[] {
  return [
    clientId, currency, String(amount),
    request?.id ?? null, request?.fingerprint ?? null, request === undefined ? null : String(request.ttlMs),
    request?.claim?.id ?? null, request?.claim === undefined ? null : String(request.claim.leaseMs),
    record?.id ?? null, record?.createdAt ?? null, record?.paymentIntentId ?? null, record?.resource ?? null,
  ];
}

/** The twelve arrays of `deduct_batch_claiming` for `deductions`, in their order. */
export function deductBatchParameters(deductions: readonly Deduction[]): Parameter[][] {
  const columns: Parameter[][] = Array.from({ length: 12 }, () => []);
  for (const deduction of deductions) {
    for (const [column, value] of deductParameters(deduction).entries()) columns[column]?.push(value);
  }
  return columns;
}

/**
 * The positions of `deductions` in the order their batch locks rows: by client, then currency, each client's
 * deductions in the order asked. Concurrent batches (other connections, other processes) then take
 * the balance rows they share in one order, so they queue instead of deadlocking.
 */
export function lockOrder(deductions: readonly Deduction[]): number[] {
  const key = (d: Deduction | undefined) => (d === undefined ? '' : `${d.clientId}\u0000${d.currency}`);
  return deductions.map((_, i) => i).sort((a, b) => {
    const ka = key(deductions[a]);
    const kb = key(deductions[b]);
    return ka < kb ? -1 : ka > kb ? 1 : a - b;
  });
}

/** The SQLSTATE the server reported for `error`, or for the error it wraps (the store's own errors keep it as `cause`). */
function serverStateOf(error: unknown): string | undefined {
  return sqlStateOf(error) ?? (error instanceof Error ? sqlStateOf(error.cause) : undefined);
}

/**
 * True when the server rolled the batch back because it chose it as a deadlock victim or found a serialization
 * failure: nothing of it was applied, and running it again is safe.
 */
export function isRetryableBatchFailure(error: unknown): boolean {
  const state = serverStateOf(error);
  return state === '40P01' || state === '40001';
}

/**
 * True when the server rolled the batch back for an error one deduction's data may have caused (classes 22 data
 * exception, 23 integrity constraint, P0 raised by a function): each deduction is then run alone, so only that
 * one fails. Timeouts, lost answers and connection failures are not: they fail the whole batch.
 */
export function isPerDeductionFailure(error: unknown): boolean {
  const state = serverStateOf(error);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23') || state.startsWith('P0'));
}
