// Conformance cases for refunds of deductions (CR-15.3, CR-6.9, CR-11.8) and for late deductions (a caller's timeoutMs).
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { DeductionRefund, Store } from '../store.ts';
import { withStoreDeadlines } from '../store-deadline.ts';
import {
  CONFLICT, balanceOf, creditedClient, deducted, deductionRecord, expectFailure, fundedClient, newClientId, newRefundId, newRequestId, refunded, repeated,
  superseded,
} from './store-conformance-helpers.ts';
import { blockFor, outcome, paid, paidClient, refundOf } from './store-conformance-paid.ts';

/** Registers the refund and late-deduction cases against the store `getStore()` returns inside each test. */
export function describeRefundConformance(getStore: () => Store): void {
  describe('refundDeduction (CR-15.3, CR-6.9, CR-11.8)', () => {
    it('gives the price back and forgets the request id: the next call with the id deducts again, then repeats once', async () => {
      const { store, clientId, requestId, refund } = await paidClient(getStore, 10);
      expect(await store.refundDeduction(refund)).toEqual(refunded(100));
      expect(await balanceOf(store, clientId)).toBe(100);
      expect(await store.deductBalance(paid(clientId, 10, requestId))).toEqual(deducted(90));
      expect(await store.deductBalance(paid(clientId, 10, requestId))).toEqual(repeated(90));
      expect(await store.deductBalance(paid(clientId, 10, requestId))).toEqual(CONFLICT);
    });

    it('gives nothing back once its one repeat was answered: the deduction paid for the repeat (CR-6.9)', async () => {
      const { store, clientId, requestId, refund } = await paidClient(getStore, 10);
      expect(await store.deductBalance(paid(clientId, 10, requestId))).toEqual(repeated(90));
      expect(await store.refundDeduction(refund)).toEqual(superseded(90));
      expect(await store.deductBalance(paid(clientId, 10, requestId))).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(90);
    });

    it('keeps the log exact: the refunded deduction leaves it, the others and the top-up stay in order', async () => {
      const store = getStore();
      const { clientId } = await creditedClient(store, 1_000);
      const deductions = [paid(clientId, 10, newRequestId()), paid(clientId, 20, newRequestId()), paid(clientId, 30)];
      for (const deduction of deductions) await store.deductBalance(deduction);
      expect(await store.refundDeduction(refundOf(deductions[1]!))).toEqual(refunded(960));
      const log = await store.listTransactions?.(clientId);
      if (log) {
        expect(log.map((record) => record.type)).toEqual(['topup', 'deduction', 'deduction']);
        expect(log.slice(1)).toEqual([deductions[0]!.record, deductions[2]!.record]);
        const credited = log.reduce((sum, record) => sum + (record.type === 'topup' ? record.amount : -record.amount), 0);
        expect(credited).toBe(await balanceOf(store, clientId));
      }
      // The other deduction's request id is still kept.
      expect(await store.deductBalance(deductions[0]!)).toEqual(repeated(960));
    });

    it('gives back a deduction without record or request id, and one whose record is gone', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 50);
      await store.deductBalance({ clientId, currency: 'usd', amount: 20 });
      expect(await store.refundDeduction({ clientId, currency: 'usd', amount: 20, refundId: newRefundId() })).toEqual(refunded(50));
      const recordId = deductionRecord(clientId, 5).id;
      expect(await store.refundDeduction({ clientId, currency: 'eur', amount: 5, recordId, requestId: newRequestId(), refundId: newRefundId() })).toEqual(refunded(5));
      expect((await store.getClient(clientId))?.balances).toEqual({ usd: 50, eur: 5 });
    });

    it('rejects invalid refunds and an overflow, changing nothing', async () => {
      const store = getStore();
      const clientId = newClientId();
      await store.addBalance(clientId, 'usd', Number.MAX_SAFE_INTEGER);
      const refundId = newRefundId();
      for (const amount of [0, -1, 1.5]) await expectFailure(() => store.refundDeduction({ clientId, currency: 'usd', amount, refundId }), RangeError);
      for (const timeoutMs of [0, -1, 1.5]) await expectFailure(() => store.refundDeduction({ clientId, currency: 'usd', amount: 1, refundId, timeoutMs }), RangeError);
      await expectFailure(() => store.refundDeduction({ clientId: '', currency: 'usd', amount: 1, refundId }), TypeError);
      await expectFailure(() => store.refundDeduction({ clientId, currency: 'USD', amount: 1, refundId }), TypeError);
      await expectFailure(() => store.refundDeduction({ clientId, currency: 'usd', amount: 1, requestId: '', refundId }), TypeError);
      for (const bad of ['', 'r'.repeat(257), undefined]) {
        const refund = { clientId, currency: 'usd', amount: 1, refundId: bad } as unknown as DeductionRefund;
        await expectFailure(() => store.refundDeduction(refund), TypeError);
      }
      // An overflow changes nothing, and keeps no refund id: the same id applies once there is room.
      await expectFailure(() => store.refundDeduction({ clientId, currency: 'usd', amount: 1, refundId }), RangeError);
      expect(await balanceOf(store, clientId)).toBe(Number.MAX_SAFE_INTEGER);
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 1 })).toEqual(deducted(Number.MAX_SAFE_INTEGER - 1));
      expect(await store.refundDeduction({ clientId, currency: 'usd', amount: 1, refundId })).toEqual(refunded(Number.MAX_SAFE_INTEGER));
    });

    it('gives back exactly once per call under concurrency', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 200);
      const deductions = Array.from({ length: 20 }, () => paid(clientId, 10, newRequestId()));
      await Promise.all(deductions.map((deduction) => store.deductBalance(deduction)));
      expect(await balanceOf(store, clientId)).toBe(0);
      await Promise.all(deductions.map((deduction) => store.refundDeduction(refundOf(deduction))));
      expect(await balanceOf(store, clientId)).toBe(200);
      expect(await store.listTransactions?.(clientId)).toEqual(store.listTransactions ? [] : undefined);
    });
  });

  describe('late deductions (timeoutMs)', () => {
    it('a deduction whose caller gave up first changes nothing: no money, no record, no kept id, no repeat used up', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      const requestId = newRequestId();
      // The gate's view: it waits 1 ms for each call, then answers 503 and goes.
      const impatient = withStoreDeadlines(store, 1);
      const attempts = [paid(clientId, 10, requestId), paid(clientId, 10, requestId)].map((deduction) => outcome(impatient.deductBalance(deduction)));
      blockFor(30); // a store that applies them later than at the call applies them after their callers gave up
      const settled = await Promise.all(attempts);
      await sleep(100); // whatever is still under way reaches the store
      const answered = settled.flatMap((attempt) => ('value' in attempt ? [attempt.value] : []));
      // Only what a waiting caller was told happened: an in-process store applies at the call and answers in time.
      const deductedNow = answered.filter((result) => result.status === 'deducted').length;
      expect(await balanceOf(store, clientId)).toBe(100 - 10 * deductedNow);
      expect((await store.listTransactions?.(clientId))?.length).toBe(store.listTransactions ? deductedNow : undefined);
      if (answered.length === 0) {
        expect(await store.deductBalance(paid(clientId, 10, requestId))).toEqual(deducted(90));
        expect(await store.deductBalance(paid(clientId, 10, requestId))).toEqual(repeated(90));
      }
    });

    it('a deduction that reaches the store past its timeoutMs rejects with ERR_STORE_LATE, or was applied at the call', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      const late = outcome(store.deductBalance({ ...paid(clientId, 10, newRequestId()), timeoutMs: 1 }));
      blockFor(30);
      const settled = await late;
      if ('value' in settled) expect(settled.value).toEqual(deducted(90));
      else expect(settled.error).toMatchObject({ code: 'ERR_STORE_LATE' });
      expect(await balanceOf(store, clientId)).toBe('value' in settled ? 90 : 100);
    });

    it('a deduction within its timeoutMs is applied as usual; a timeoutMs that is not a positive safe integer is a RangeError', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      expect(await store.deductBalance({ ...paid(clientId, 10, newRequestId()), timeoutMs: 5_000 })).toEqual(deducted(90));
      for (const timeoutMs of [0, -1, 1.5]) await expectFailure(() => store.deductBalance({ ...paid(clientId, 10), timeoutMs }), RangeError);
      expect(await balanceOf(store, clientId)).toBe(90);
    });
  });
}
