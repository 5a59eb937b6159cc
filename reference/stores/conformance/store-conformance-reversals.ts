// Conformance cases for refunds and disputes (reverseTopUp), negative balances, hasCredit and processed events.
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store, TopUpReversal } from '../store.ts';
import {
  INSUFFICIENT, balanceOf, creditedClient, deduct, deducted, deductionRecord, expectFailure, fundedClient, newClientId, newPaymentIntentId, type Skip,
  storeWith,
} from './store-conformance-helpers.ts';

type ReversingStore = Store & Required<Pick<Store, 'reverseTopUp'>>;

/** Registers the reversal, credit-marker and event cases; each is skipped when the store lacks the method. */
export function describeReversalConformance(getStore: () => Store): void {
  const reversing = (skip: Skip): ReversingStore => storeWith(getStore, ['reverseTopUp'], skip, 'the store has no reverseTopUp');

  describe('reverseTopUp', () => {
    it('takes a reversal of a credited PaymentIntent from its client once per key and amount', async ({ skip }) => {
      const store = reversing(skip);
      const { clientId, paymentIntentId } = await creditedClient(store, 50_000);
      const refund = { paymentIntentId, key: 'refund:ch_1', amount: 20_000 };
      const currency = 'usd';
      expect(await store.reverseTopUp(refund)).toEqual({ changed: true, taken: 20_000, clientId, currency, balance: 30_000 });
      expect(await store.reverseTopUp(refund)).toEqual({ changed: false, taken: 0, clientId, currency, balance: 30_000 });
      expect(await store.reverseTopUp({ ...refund, amount: 5_000 })).toEqual({ changed: false, taken: 0, clientId, currency, balance: 30_000 });
      expect(await store.reverseTopUp({ ...refund, amount: 25_000 })).toEqual({ changed: true, taken: 5_000, clientId, currency, balance: 25_000 });
      expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 25_000 }, topUps: 1 });
    });

    it('caps what all keys of a PaymentIntent take at its credited amount, and lets the balance go negative', async ({ skip }) => {
      const store = reversing(skip);
      const { clientId, paymentIntentId } = await creditedClient(store, 50_001);
      expect(await deduct(store, clientId, 40_000)).toEqual(deducted(10_001));
      expect((await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 30_000 })).balance).toBe(-19_999);
      const dispute = await store.reverseTopUp({ paymentIntentId, key: 'dispute:dp_1', amount: 20_100 });
      expect(dispute).toEqual({ changed: true, taken: 20_001, clientId, currency: 'usd', balance: -40_000 });
      expect((await store.reverseTopUp({ paymentIntentId, key: 'dispute:dp_2', amount: 1 })).taken).toBe(0);
      expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: -40_000 } });
    });

    it('records a reversal that arrives before the credit, and the credit then adds only the rest', async ({ skip }) => {
      const store = reversing(skip);
      const clientId = newClientId();
      const paymentIntentId = newPaymentIntentId();
      expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 10_000 }))
        .toEqual({ changed: true, taken: 0, clientId: null, currency: null, balance: null });
      expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 10_000 }))
        .toEqual({ changed: false, taken: 0, clientId: null, currency: null, balance: null });
      expect(await store.getClient(clientId)).toBeNull();
      expect(await store.creditTopUp({ clientId, currency: 'eur', amount: 50_000, paymentIntentId })).toEqual({ credited: true, balance: 40_000 });
      expect(await store.getClient(clientId)).toMatchObject({ balances: { eur: 40_000 }, topUps: 1 });
      const log = await store.listTransactions?.(clientId);
      if (log) expect(log).toEqual([expect.objectContaining({ type: 'topup', currency: 'eur', amount: 50_000, paymentIntentId })]);
      expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 60_000 }))
        .toEqual({ changed: true, taken: 40_000, clientId, currency: 'eur', balance: 0 });
      expect((await store.getClient(clientId))?.balances).toEqual({ eur: 0 });
    });

    it('CR-14.11 ends at credit − min(credit, reversals) whatever the order of the credit and the reversals', async ({ skip }) => {
      const store = reversing(skip);
      const reversal = fc.record({ key: fc.integer({ min: 0, max: 2 }), amount: fc.integer({ min: 1, max: 60_000 }) });
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 50_000 }), fc.array(reversal, { maxLength: 6 }), fc.nat(), async (units, reversals, at) => {
          const clientId = newClientId();
          const paymentIntentId = newPaymentIntentId();
          const position = at % (reversals.length + 1);
          const highest = new Map<number, number>();
          for (const [index, r] of reversals.entries()) {
            if (index === position) await store.creditTopUp({ clientId, currency: 'usd', amount: units, paymentIntentId });
            await store.reverseTopUp({ paymentIntentId, key: `k${r.key}`, amount: r.amount });
            highest.set(r.key, Math.max(highest.get(r.key) ?? 0, r.amount));
          }
          if (position === reversals.length) await store.creditTopUp({ clientId, currency: 'usd', amount: units, paymentIntentId });
          const reversed = [...highest.values()].reduce((sum, amount) => sum + amount, 0);
          expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: units - Math.min(units, reversed) }, topUps: 1 });
        }),
        { numRuns: 40 },
      );
    });

    it('applies 20 concurrent deliveries of one reversal once, also racing the credit', async ({ skip }) => {
      const store = reversing(skip);
      const clientId = newClientId();
      const paymentIntentId = newPaymentIntentId();
      const refund: TopUpReversal = { paymentIntentId, key: 'refund:ch_1', amount: 7_000 };
      const credit = store.creditTopUp({ clientId, currency: 'usd', amount: 10_000, paymentIntentId });
      const results = await Promise.all(Array.from({ length: 20 }, () => store.reverseTopUp(refund)));
      await credit;
      expect(results.filter((r) => r.changed)).toHaveLength(1);
      expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 3_000 }, topUps: 1 });
    });

    it('rejects invalid reversals', async ({ skip }) => {
      const store = reversing(skip);
      const paymentIntentId = newPaymentIntentId();
      await expectFailure(() => store.reverseTopUp({ paymentIntentId, key: 'k', amount: 0 }), RangeError);
      await expectFailure(() => store.reverseTopUp({ paymentIntentId, key: '', amount: 1 }), TypeError);
      await expectFailure(() => store.reverseTopUp({ paymentIntentId: '', key: 'k', amount: 1 }), TypeError);
    });
  });

  describe('negative balances', () => {
    it('serve nothing: every deduction, of 0 included, is insufficient until the balance is back', async ({ skip }) => {
      const store = reversing(skip);
      const { clientId, paymentIntentId } = await creditedClient(store, 1_000);
      await deduct(store, clientId, 600);
      await store.reverseTopUp({ paymentIntentId, key: 'dispute:dp_1', amount: 1_000 });
      expect(await balanceOf(store, clientId)).toBe(-600);
      for (const amount of [0, 1, 500]) expect(await deduct(store, clientId, amount)).toEqual(INSUFFICIENT);
      const request = { id: 'req-negative', fingerprint: 'f', ttlMs: 60_000 };
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 0, request })).toEqual(INSUFFICIENT);
      expect(await store.addBalance(clientId, 'usd', 600)).toBe(0);
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 0, request })).toEqual(deducted(0));
      expect(await deduct(store, clientId, 1)).toEqual(INSUFFICIENT);
    });
  });

  describe('hasCredit', () => {
    it('is false until the PaymentIntent is credited, then true', async ({ skip }) => {
      const store = storeWith(getStore, ['hasCredit'], skip, 'the store has no hasCredit');
      const paymentIntentId = newPaymentIntentId();
      expect(await store.hasCredit(paymentIntentId)).toBe(false);
      await store.reverseTopUp?.({ paymentIntentId, key: 'refund:ch_1', amount: 1 });
      expect(await store.hasCredit(paymentIntentId)).toBe(false);
      await store.creditTopUp({ clientId: newClientId(), currency: 'usd', amount: 10, paymentIntentId });
      expect(await store.hasCredit(paymentIntentId)).toBe(true);
    });
  });

  describe('processed events', () => {
    it('remembers marked event ids, idempotently', async ({ skip }) => {
      const store = storeWith(getStore, ['hasProcessedEvent', 'markEventProcessed'], skip, 'the store keeps no processed events');
      const eventId = `evt_${randomUUID()}`;
      expect(await store.hasProcessedEvent(eventId)).toBe(false);
      await store.markEventProcessed(eventId);
      await store.markEventProcessed(eventId);
      expect(await store.hasProcessedEvent(eventId)).toBe(true);
      expect(await store.hasProcessedEvent(`${eventId}x`)).toBe(false);
    });
  });

  describe('deduction records', () => {
    it('CR-14.9 appends the record given to deductBalance with a successful deduction only', async ({ skip }) => {
      const store = storeWith(getStore, ['listTransactions'], skip, 'the store keeps no transaction log');
      const clientId = await fundedClient(store, 15);
      const withRecord = (amount: number, record = deductionRecord(clientId, amount)) =>
        store.deductBalance({ clientId, currency: 'usd', amount, record });
      const first = deductionRecord(clientId, 10);
      expect(await withRecord(10, first)).toEqual(deducted(5));
      expect(await withRecord(10)).toEqual(INSUFFICIENT);
      expect(await store.listTransactions(clientId)).toEqual([first]);
      await expectFailure(() => withRecord(1, deductionRecord(clientId, 2)), TypeError);
      await expectFailure(() => withRecord(1, deductionRecord(newClientId(), 1)), TypeError);
      await expectFailure(() => withRecord(1, { ...deductionRecord(clientId, 1), type: 'topup' }), TypeError);
      expect(await balanceOf(store, clientId)).toBe(5);
      expect(await store.listTransactions(clientId)).toEqual([first]);
    });
  });
}
