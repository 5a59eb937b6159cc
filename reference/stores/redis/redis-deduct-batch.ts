// The Redis store's group of deductions as one DEDUCT_BATCH call: its keys and arguments, and its reply as one outcome per deduction.
import type { Currency } from '../store.ts';
import type { BackendDeduction } from '../store-backend.ts';
import type { DeductionOutcome } from '../deduction-groups.ts';
import type { RedisKeys } from './redis-keys.ts';
import { asArray, recordFields, toDeductionResult, toText } from './redis-replies.ts';

/** The KEYS and ARGV of one DEDUCT_BATCH call (layout in redis-deduct-scripts.ts). */
export interface BatchCall {
  keys: string[];
  args: string[];
}

/**
 * The call that runs `deductions` in order: `logPolicy` (append_log's `<ttl seconds>:<max entries>`) is the log's for those with a record,
 * `legacy` the prefix's pinned legacy currency, `deadline` a deduction's deadline in the server's clock (ms, as
 * text; '' for none: see server-clock.ts).
 */
export function batchCall(
  names: RedisKeys, deductions: readonly BackendDeduction[], logPolicy: string, legacy: Currency, deadline: (deduction: BackendDeduction) => string,
): BatchCall {
  const keys: string[] = [];
  const args: string[] = [legacy];
  for (const deduction of deductions) {
    const { clientId, currency, amount, record, request } = deduction;
    keys.push(names.client(clientId), names.log(clientId));
    if (request !== undefined) keys.push(names.request(clientId, request.id));
    const fields = record !== undefined ? recordFields(record) : [];
    // The script's header (BATCH_HEADER_LENGTH entries), then the fields.
    args.push(
      currency, String(amount), record !== undefined ? logPolicy : '',
      request !== undefined ? String(request.ttlMs) : '', request?.fingerprint ?? '', request?.claim?.id ?? '',
      request?.claim !== undefined ? String(request.claim.leaseMs) : '', deadline(deduction), String(fields.length),
      ...fields,
    );
  }
  return { keys, args };
}

/**
 * DEDUCT_BATCH's reply as `count` outcomes, in order: each deduction's result, or the error it alone raised (an
 * `{ 'error', message }` reply, or a reply this code cannot read). Throws only when the reply is not one entry per
 * deduction, which leaves every outcome unknown.
 */
export function toDeductionOutcomes(reply: unknown, count: number): DeductionOutcome[] {
  const replies = asArray(reply, 'deductBalance batch');
  if (replies.length !== count) throw new TypeError(`unexpected Redis reply for deductBalance batch: ${replies.length} replies for ${count} deductions`);
  return replies.map((entry): DeductionOutcome => {
    try {
      const [status, message] = asArray(entry, 'deductBalance');
      if (toText(status, 'deductBalance status') === 'error') return { ok: false, error: new Error(toText(message, 'deductBalance error')) };
      return { ok: true, result: toDeductionResult(entry) };
    } catch (error) {
      return { ok: false, error };
    }
  });
}
