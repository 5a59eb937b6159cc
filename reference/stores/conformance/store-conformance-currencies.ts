// Conformance cases for balances per currency (CR-6.8): credits, deductions, reversals and records keep currencies apart.
import { describe, expect, it } from 'vitest';
import type { Store } from '../store.ts';
import {
  INSUFFICIENT, creditedClient, deduct, deducted, deductionRecord, expectFailure, fundedClient, newPaymentIntentId, storeWith,
} from './store-conformance-helpers.ts';

/** A new client holding `usd` usd (added first) and `eur` eur (credited next, by a top-up of a fresh PaymentIntent). */
async function clientInTwoCurrencies(store: Store, usd: number, eur: number): Promise<{ clientId: string; paymentIntentId: string }> {
  const clientId = await fundedClient(store, usd);
  const paymentIntentId = newPaymentIntentId();
  await store.creditTopUp({ clientId, currency: 'eur', amount: eur, paymentIntentId });
  return { clientId, paymentIntentId };
}

/** Registers the per-currency cases against the store `getStore()` returns inside each test. */
export function describeCurrencyConformance(getStore: () => Store): void {
  describe('balances per currency (CR-6.8)', () => {
    it('a credit in eur leaves usd unchanged, and getClient shows both', async () => {
      const store = getStore();
      const id = await fundedClient(store, 300);
      expect(await store.creditTopUp({ clientId: id, currency: 'eur', amount: 500, paymentIntentId: newPaymentIntentId() }))
        .toEqual({ credited: true, balance: 500 });
      expect(await store.addBalance(id, 'usd', 1)).toBe(301);
      expect(await store.getClient(id)).toMatchObject({ balances: { usd: 301, eur: 500 }, topUps: 1 });
    });

    it('a balance in eur never pays in usd: the deduction is insufficient and nothing changes', async () => {
      const store = getStore();
      const { clientId: id } = await creditedClient(store, 1_000, 'eur');
      expect(await deduct(store, id, 1, 'usd')).toEqual(INSUFFICIENT);
      expect(await store.getClient(id)).toMatchObject({ balances: { eur: 1_000 }, topUps: 1 });
      expect(await deduct(store, id, 400, 'eur')).toEqual(deducted(600));
      expect((await store.getClient(id))?.balances).toEqual({ eur: 600 });
    });

    it('deducts from the named currency only, each down to its own zero', async () => {
      const store = getStore();
      const id = await fundedClient(store, 10);
      await store.addBalance(id, 'eur', 20);
      expect(await deduct(store, id, 10, 'usd')).toEqual(deducted(0));
      expect(await deduct(store, id, 1, 'usd')).toEqual(INSUFFICIENT);
      expect(await deduct(store, id, 20, 'eur')).toEqual(deducted(0));
      expect((await store.getClient(id))?.balances).toEqual({ usd: 0, eur: 0 });
    });

    it('answers a repeated credit with the balance in the currency asked, not the credited one', async () => {
      const store = getStore();
      const { clientId: id, paymentIntentId } = await clientInTwoCurrencies(store, 7, 50);
      expect(await store.creditTopUp({ clientId: id, currency: 'eur', amount: 50, paymentIntentId })).toEqual({ credited: false, balance: 50 });
      expect(await store.creditTopUp({ clientId: id, currency: 'usd', amount: 50, paymentIntentId })).toEqual({ credited: false, balance: 7 });
      expect(await store.creditTopUp({ clientId: id, currency: 'gbp', amount: 50, paymentIntentId })).toEqual({ credited: false, balance: 0 });
      expect(await store.getClient(id)).toMatchObject({ balances: { usd: 7, eur: 50 }, topUps: 1 });
    });

    it('reverseTopUp takes from the credited currency and reports it', async ({ skip }) => {
      const store = storeWith(getStore, ['reverseTopUp'], skip, 'the store has no reverseTopUp');
      const { clientId, paymentIntentId } = await clientInTwoCurrencies(store, 900, 500);
      expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 200 }))
        .toEqual({ changed: true, taken: 200, clientId, currency: 'eur', balance: 300 });
      expect(await store.reverseTopUp({ paymentIntentId, key: 'refund:ch_1', amount: 200 }))
        .toEqual({ changed: false, taken: 0, clientId, currency: 'eur', balance: 300 });
      expect(await store.reverseTopUp({ paymentIntentId, key: 'dispute:dp_1', amount: 800 }))
        .toEqual({ changed: true, taken: 300, clientId, currency: 'eur', balance: 0 });
      expect((await store.getClient(clientId))?.balances).toEqual({ usd: 900, eur: 0 });
    });

    it('a negative balance in one currency serves nothing there and leaves the others serving', async ({ skip }) => {
      const store = storeWith(getStore, ['reverseTopUp'], skip, 'the store has no reverseTopUp');
      const { clientId, paymentIntentId } = await clientInTwoCurrencies(store, 5, 100);
      await deduct(store, clientId, 60, 'eur');
      expect((await store.reverseTopUp({ paymentIntentId, key: 'dispute:dp_1', amount: 100 })).balance).toBe(-60);
      expect(await deduct(store, clientId, 0, 'eur')).toEqual(INSUFFICIENT);
      expect(await deduct(store, clientId, 0, 'usd')).toEqual(deducted(5));
      expect(await deduct(store, clientId, 5, 'usd')).toEqual(deducted(0));
      expect((await store.getClient(clientId))?.balances).toEqual({ eur: -60, usd: 0 });
    });

    it('records carry their currency: a topup in the credited one, a deduction as given', async ({ skip }) => {
      const store = storeWith(getStore, ['listTransactions'], skip, 'the store keeps no transaction log');
      const { clientId, paymentIntentId } = await clientInTwoCurrencies(store, 100, 500);
      const usdRecord = deductionRecord(clientId, 30, 'usd');
      const eurRecord = deductionRecord(clientId, 40, 'eur');
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 30, record: usdRecord })).toEqual(deducted(70));
      expect(await store.deductBalance({ clientId, currency: 'eur', amount: 40, record: eurRecord })).toEqual(deducted(460));
      const log = await store.listTransactions(clientId);
      expect(log).toHaveLength(3);
      expect(log[0]).toMatchObject({ type: 'topup', currency: 'eur', amount: 500, paymentIntentId });
      expect(log.slice(1)).toEqual([usdRecord, eurRecord]);
    });

    it('rejects a record of another currency than the deduction with a TypeError, changing nothing', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      const record = deductionRecord(clientId, 10, 'eur');
      await expectFailure(() => store.deductBalance({ clientId, currency: 'usd', amount: 10, record }), TypeError);
      await expectFailure(() => store.deductBalance({ clientId, currency: 'usd', amount: 10, record: { ...record, currency: 'EUR' } }), TypeError);
      expect((await store.getClient(clientId))?.balances).toEqual({ usd: 100 });
      expect(await store.listTransactions?.(clientId)).toEqual(store.listTransactions ? [] : undefined);
    });
  });
}
