// Conformance cases for refund ids: a refund is applied at most once per (client, refund id), so a failed or late call can be retried (CR-15.3, CR-11.3).
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Store } from '../store.ts';
import { withStoreDeadlines } from '../store-deadline.ts';
import { balanceOf, deducted, newClientId, newRefundId, refunded, repeated } from './store-conformance-helpers.ts';
import { blockFor, outcome, paid, paidClient } from './store-conformance-paid.ts';

/** Registers the refund-id cases against the store `getStore()` returns inside each test. */
export function describeRefundIdConformance(getStore: () => Store): void {
  describe('refundDeduction: at most once per refund id (CR-15.3, CR-11.3)', () => {
    it('applies a refund id once: a repeat changes nothing (balance, log, kept request id) and answers the current balance', async () => {
      const { store, clientId, requestId, refund } = await paidClient(getStore, 10);
      expect(await store.refundDeduction(refund)).toEqual(refunded(100));
      // The same request id is deducted again (its refund forgot it) and kept again.
      const again = paid(clientId, 10, requestId);
      expect(await store.deductBalance(again)).toEqual(deducted(90));
      await store.addBalance(clientId, 'usd', 5);
      expect(await store.refundDeduction(refund)).toEqual(refunded(95));
      expect(await store.refundDeduction({ ...refund })).toEqual(refunded(95));
      expect(await balanceOf(store, clientId)).toBe(95);
      // The repeat neither forgot the request id kept since nor removed a record.
      expect(await store.deductBalance(paid(clientId, 10, requestId))).toEqual(repeated(95));
      const log = await store.listTransactions?.(clientId);
      if (log) expect(log.map((record) => record.id)).toEqual([again.record?.id]);
    });

    it('applies concurrent calls with one refund id once, and every call answers the refunded balance', async () => {
      const { store, clientId, refund } = await paidClient(getStore, 30);
      const answers = await Promise.all(Array.from({ length: 10 }, () => store.refundDeduction({ ...refund })));
      expect(answers).toEqual(Array.from({ length: 10 }, () => refunded(100)));
      expect(await balanceOf(store, clientId)).toBe(100);
      expect(await store.listTransactions?.(clientId)).toEqual(store.listTransactions ? [] : undefined);
    });

    it('keeps refund ids per client, and applies a refund under another id again', async () => {
      const store = getStore();
      const [alice, bob] = [newClientId(), newClientId()];
      const refundId = newRefundId();
      expect(await store.refundDeduction({ clientId: alice, currency: 'usd', amount: 7, refundId })).toEqual(refunded(7));
      expect(await store.refundDeduction({ clientId: bob, currency: 'usd', amount: 7, refundId })).toEqual(refunded(7));
      expect(await store.refundDeduction({ clientId: alice, currency: 'usd', amount: 7, refundId: newRefundId() })).toEqual(refunded(14));
      expect(await store.refundDeduction({ clientId: alice, currency: 'usd', amount: 7, refundId })).toEqual(refunded(14));
    });

    it('a refund whose first call was late (its caller gave up: nothing applied, or applied at the call) is applied by its retry, once', async () => {
      const { store, clientId, refund } = await paidClient(getStore, 10);
      // The gate's view: it waits 1 ms, then gives up; one attempt carries its own timeoutMs of 1 ms.
      const impatient = withStoreDeadlines(store, 1);
      const attempts = [outcome(impatient.refundDeduction(refund)), outcome(store.refundDeduction({ ...refund, timeoutMs: 1 }))];
      blockFor(30); // a store that applies them later than at the call applies them after their callers gave up
      const settled = await Promise.all(attempts);
      await sleep(100); // whatever is still under way reaches the store
      const failed = settled.flatMap((attempt) => ('error' in attempt ? [attempt.error] : []));
      for (const error of failed) expect(error).toMatchObject({ code: expect.stringMatching(/^ERR_STORE_(LATE|TIMEOUT)$/) });
      const applied = settled.some((attempt) => 'value' in attempt);
      expect(await balanceOf(store, clientId)).toBe(applied ? 100 : 90);
      // The retry, in time: given back exactly once in all.
      expect(await store.refundDeduction({ ...refund, timeoutMs: 5_000 })).toEqual(refunded(100));
      expect(await store.refundDeduction(refund)).toEqual(refunded(100));
      expect(await balanceOf(store, clientId)).toBe(100);
      expect(await store.listTransactions?.(clientId)).toEqual(store.listTransactions ? [] : undefined);
    });
  });
}
