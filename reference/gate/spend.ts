// Spending from a balance: the deduction with its transaction record (credits path, steps 5.4 and 5.11).
import { randomUUID } from 'node:crypto';
import { MESSAGES } from '../protocol/constants.ts';
import type { TransactionRecord } from '../stores/store.ts';
import type { GateContext, GatedRoute } from './context.ts';
import { moneyStoreCall, OUTCOME_UNKNOWN } from './store-outcome.ts';

/**
 * Deducts the route price from the client's balance; resolves to the new balance or null when insufficient.
 * When the store keeps a log, the `deduction` record goes with the deduction, in the same atomic step.
 * `failureMessage` is what a 503 tells the client when the store fails; when the store did not answer in time, the
 * 503 says instead that the request may have been deducted.
 */
export async function deductPrice(
  ctx: GateContext,
  route: GatedRoute,
  clientId: string,
  failureMessage: string = MESSAGES.STORE_UNAVAILABLE,
): Promise<number | null> {
  const { store } = ctx;
  const record: TransactionRecord | undefined = store.recordTransaction
    ? { id: randomUUID(), type: 'deduction', clientId, amount: route.amount, createdAt: new Date().toISOString(), resource: route.key }
    : undefined;
  const unknown = failureMessage === MESSAGES.CREDITED_NOT_SERVED ? OUTCOME_UNKNOWN.DEDUCTION_AFTER_CREDIT : OUTCOME_UNKNOWN.DEDUCTION;
  return moneyStoreCall(ctx.report, 'deductBalance', failureMessage, unknown, () => store.deductBalance(clientId, route.amount, record));
}
