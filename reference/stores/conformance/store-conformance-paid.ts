// Helpers of the refund and late-call cases: paid deductions and their refunds, and a store that sees calls late.
import { expect } from 'vitest';
import type { Deduction, DeductionRefund, Store } from '../store.ts';
import { deducted, deductionRecord, fundedClient, newRefundId, newRequestId } from './store-conformance-helpers.ts';

/** A deduction of `amount` usd for `clientId` with a fresh record and, when given, the request id `requestId`. */
export function paid(clientId: string, amount: number, requestId?: string): Deduction {
  const deduction: Deduction = { clientId, currency: 'usd', amount, record: deductionRecord(clientId, amount) };
  if (requestId !== undefined) deduction.request = { id: requestId, fingerprint: `GET /x usd ${amount}`, ttlMs: 60_000 };
  return deduction;
}

/** The refund of `deduction` under `refundId` (a fresh one unless given), as the gate asks for it. */
export function refundOf({ clientId, currency, amount, record, request }: Deduction, refundId = newRefundId()): DeductionRefund {
  return { clientId, currency, amount, recordId: record?.id, requestId: request?.id, refundId };
}

/**
 * The test's store and a new client of it who had 100 usd and paid `amount` of them (a deduction with its record and
 * a fresh request id, answered `deducted`); the request id, the deduction, and its refund, not asked for yet.
 */
export async function paidClient(getStore: () => Store, amount: number) {
  const store = getStore();
  const clientId = await fundedClient(store, 100);
  const requestId = newRequestId();
  const deduction = paid(clientId, amount, requestId);
  expect(await store.deductBalance(deduction)).toEqual(deducted(100 - amount));
  return { store, clientId, requestId, deduction, refund: refundOf(deduction) };
}

/** Blocks the event loop for `ms`: a store that applies calls later than at the call sees them late. */
export function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: nothing else runs
  }
}

/** What a call came to: its value, or the error it rejected with. */
export function outcome<T>(call: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  return call.then((value) => ({ value }), (error: unknown) => ({ error }));
}
