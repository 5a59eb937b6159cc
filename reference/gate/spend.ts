// Spending from a balance: the deduction and its transaction record (credits path, steps 5.4 and 5.11).
import { randomUUID } from 'node:crypto';
import { MESSAGES } from '../protocol/constants.ts';
import { storeCall } from './failures.ts';
import type { GateContext, GatedRoute } from './context.ts';

/**
 * Deducts the route price from the client's balance; resolves to the new balance or null when insufficient.
 * `failureMessage` is what a 503 tells the client when the store fails.
 */
export async function deductPrice(
  ctx: GateContext,
  route: GatedRoute,
  clientId: string,
  failureMessage: string = MESSAGES.STORE_UNAVAILABLE,
): Promise<number | null> {
  const balance = await storeCall(ctx.report, 'deductBalance', failureMessage, () => ctx.store.deductBalance(clientId, route.amount));
  if (balance !== null) recordDeduction(ctx, route, clientId);
  return balance;
}

/** Appends the `deduction` record when the store keeps a log; a failure is reported, never fatal. */
function recordDeduction(ctx: GateContext, route: GatedRoute, clientId: string): void {
  const { store } = ctx;
  if (!store.recordTransaction) return;
  const record = {
    id: randomUUID(),
    type: 'deduction' as const,
    clientId,
    amount: route.amount,
    createdAt: new Date().toISOString(),
    resource: route.key,
  };
  store.recordTransaction(record).catch((error: unknown) => ctx.report(error, 'recordTransaction'));
}
