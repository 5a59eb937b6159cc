// Helpers shared by the store conformance cases: fresh ids and clients, results, short deduction calls and failure assertions.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Currency, Deduction, DeductionRefundResult, DeductionResult, RepeatConfirmation, Store, TransactionRecord } from '../store.ts';

/** A fresh client id, so tests never share state even when they share a store. */
export const newClientId = (): string => `client-${randomUUID()}`;

/** A new client of `store` holding `amount` units of `currency` (usd by default): what most cases start from. */
export async function fundedClient(store: Store, amount: number, currency = 'usd'): Promise<string> {
  const clientId = newClientId();
  await store.addBalance(clientId, currency, amount);
  return clientId;
}

/** A fresh PaymentIntent id. */
export const newPaymentIntentId = (): string => `pi_${randomUUID().replaceAll('-', '')}`;

/** A new client of `store` credited `amount` units of `currency` (usd by default) by a top-up of a fresh PaymentIntent. */
export async function creditedClient(store: Store, amount: number, currency: Currency = 'usd'): Promise<{ clientId: string; paymentIntentId: string }> {
  const clientId = newClientId();
  const paymentIntentId = newPaymentIntentId();
  await store.creditTopUp({ clientId, currency, amount, paymentIntentId });
  return { clientId, paymentIntentId };
}

/** What a test's `skip` is to a case: it ends the test with a note. */
export type Skip = (note: string) => never;

/** The test's store, typed with the optional `methods`; the test is skipped with `note` when the store lacks one. */
export function storeWith<M extends keyof Store>(getStore: () => Store, methods: readonly M[], skip: Skip, note: string): Store & Required<Pick<Store, M>> {
  const store = getStore();
  if (methods.some((method) => store[method] === undefined)) skip(note);
  return store as Store & Required<Pick<Store, M>>;
}

/** A fresh request id (CR-6.9). */
export const newRequestId = (): string => `req-${randomUUID()}`;

/** A fresh refund id, as the gate makes one per refund. */
export const newRefundId = (): string => randomUUID();

/** The result of a successful deduction leaving `balance`. */
export const deducted = (balance: number): DeductionResult => ({ status: 'deducted', balance });

/** The result of a refused deduction. */
export const INSUFFICIENT: DeductionResult = { status: 'insufficient' };

/** The answer to the one repeat of a kept request id, with the current `balance`. */
export const repeated = (balance: number): DeductionResult => ({ status: 'repeated', balance });

/** The answer to a kept request id whose repeat was used, or that another fingerprint asks for. */
export const CONFLICT: DeductionResult = { status: 'conflict' };

/** The answer to a kept request id whose repeat another call has claimed. */
export const BUSY: DeductionResult = { status: 'busy' };

/** The confirmation of the claim `call` made on its request id's repeat. */
export const confirmationOf = (call: Deduction): RepeatConfirmation => ({ clientId: call.clientId, requestId: call.request?.id ?? '', claimId: call.request?.claim?.id ?? '' });

/** The result of a refund that gave the price back, leaving `balance`. */
export const refunded = (balance: number): DeductionRefundResult => ({ status: 'refunded', balance });

/** The result of a refund that gave nothing back (the repeat was answered), with the current `balance`. */
export const superseded = (balance: number): DeductionRefundResult => ({ status: 'superseded', balance });

/** Deducts `amount` from the client's balance in `currency` (default `usd`), without record or request id. */
export function deduct(store: Store, clientId: string, amount: number, currency: Currency = 'usd'): Promise<DeductionResult> {
  return store.deductBalance({ clientId, currency, amount });
}

/** The client's balance in `currency` (default `usd`); undefined when the client or that balance is absent. */
export async function balanceOf(store: Store, clientId: string, currency: Currency = 'usd'): Promise<number | undefined> {
  return (await store.getClient(clientId))?.balances[currency];
}

/** A fresh `deduction` record of `amount` units of `currency` (default `usd`) for `clientId`. */
export function deductionRecord(clientId: string, amount: number, currency: Currency = 'usd', resource = 'GET /x'): TransactionRecord {
  return { id: randomUUID(), type: 'deduction', clientId, currency, amount, createdAt: new Date().toISOString(), resource };
}

/** Resolves when `run` throws or rejects with an instance of `type`. */
export async function expectFailure(run: () => unknown, type: new (...args: never[]) => Error): Promise<void> {
  await expect((async () => run())()).rejects.toBeInstanceOf(type);
}

/** Deducts 1 unit `count` times from `clientId`, each with its `deduction` record, `batch` deductions at a time. */
export async function deductMany(store: Store, clientId: string, count: number, batch: number): Promise<void> {
  for (let done = 0; done < count; done += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - done) }, () => store.deductBalance({ clientId, currency: 'usd', amount: 1, record: deductionRecord(clientId, 1) })));
  }
}

/**
 * Gives `clientId` a balance of 1000 and `deduction` records created 91, 100 and 89 days ago; resolves to the 89-day
 * one, the only one a 90-day retention keeps.
 */
export async function recordAgedDeductions(store: Store, clientId: string): Promise<TransactionRecord> {
  await store.addBalance(clientId, 'usd', 1000);
  const aged = (days: number): TransactionRecord => ({ ...deductionRecord(clientId, 1), createdAt: new Date(Date.now() - days * 86_400_000).toISOString() });
  await store.recordTransaction?.(aged(91));
  await store.recordTransaction?.(aged(100));
  const kept = aged(89);
  await store.recordTransaction?.(kept);
  return kept;
}
