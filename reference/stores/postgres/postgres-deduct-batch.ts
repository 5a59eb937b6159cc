// Group commit of the Postgres store's deductions: the deductions of one event-loop turn in one statement, so one commit.
import type { Deduction } from '../store.ts';
import { sqlStateOf } from './postgres-error.ts';

/** One array parameter of a batch function: its name and its element type. */
type BatchArray = readonly [name: string, type: 'text' | 'bigint'];

/**
 * A plpgsql function `name` in the schema `s` that runs `single` for each element of the arrays, in array order,
 * inside the caller's one statement: one transaction, one commit, one WAL flush for the batch. Every array has one
 * element per call (NULL where `single` takes NULL); arrays of different lengths raise 22023 and change nothing.
 * Returns one row per call: its 1-based position, outcome and new balance.
 */
export function batchFunction(s: string, name: string, single: string, arrays: readonly BatchArray[]): string {
  const [first = ''] = arrays.map(([array]) => array);
  const lengthsDiffer = arrays.map(([array]) => `cardinality(${array}) IS DISTINCT FROM v_count`).join('\n     OR ');
  return `
CREATE FUNCTION ${s}.${name}(
  ${arrays.map(([array, type]) => `${array} ${type}[]`).join(', ')}
) RETURNS TABLE (ord integer, outcome text, new_balance bigint) LANGUAGE plpgsql AS $fn$
DECLARE
  v_count integer := COALESCE(cardinality(${first}), 0);
BEGIN
  IF ${lengthsDiffer} THEN
    RAISE EXCEPTION '${name}: the arrays must all have % elements', v_count USING ERRCODE = '22023';
  END IF;
  FOR i IN 1 .. v_count LOOP
    ord := i;
    SELECT d.outcome, d.new_balance INTO outcome, new_balance FROM ${s}.${single}(
      ${arrays.map(([array]) => `${array}[i]`).join(', ')}) d;
    RETURN NEXT;
  END LOOP;
END
$fn$;
`;
}

/** The arrays of `deduct_batch`, one per parameter of `deduct` (postgres-functions.ts), in its order. */
export const DEDUCT_ARRAYS: readonly BatchArray[] = [
  ['p_clients', 'text'],
  ['p_currencies', 'text'],
  ['p_amounts', 'bigint'],
  ['p_request_ids', 'text'],
  ['p_fingerprints', 'text'],
  ['p_ttls_ms', 'bigint'],
  ['p_record_ids', 'text'],
  ['p_record_created_at', 'text'],
  ['p_record_payment_intents', 'text'],
  ['p_record_resources', 'text'],
];

/** Schema version 2: `deduct_batch`, {@link batchFunction} over `deduct`. */
export function deductBatchFunction(s: string): string {
  return batchFunction(s, 'deduct_batch', 'deduct', DEDUCT_ARRAYS);
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
