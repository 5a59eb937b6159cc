// The conformance suite every credit402 store passes; a store's test file calls describeStoreConformance.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Deduction, Store } from '../store.ts';
import { describeConcurrencyConformance } from './store-conformance-concurrency.ts';
import { describeCurrencyConformance } from './store-conformance-currencies.ts';
import { describeLockConformance } from './store-conformance-locks.ts';
import { describeModelConformance } from './store-conformance-model.ts';
import { describeRefundIdConformance } from './store-conformance-refund-ids.ts';
import { describeRefundConformance } from './store-conformance-refunds.ts';
import { describeRefundRepeatConformance } from './store-conformance-refund-repeats.ts';
import { describeRequestConformance } from './store-conformance-requests.ts';
import { describeRepeatClaimConformance } from './store-conformance-repeat-claims.ts';
import { describeReversalConformance } from './store-conformance-reversals.ts';
import { describeStoreIdConformance, type StoreIdStorage } from './store-conformance-store-id.ts';
import {
  INSUFFICIENT, balanceOf, deduct, deducted, deductionRecord, expectFailure, newClientId, newPaymentIntentId, fundedClient
} from './store-conformance-helpers.ts';

const MAX = Number.MAX_SAFE_INTEGER;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function expectIsoTime(value: string): void {
  expect(new Date(value).toISOString()).toBe(value);
}

/**
 * Registers the store conformance suite with vitest. `createStore` runs before every test and must
 * resolve to a ready store (fresh, or shared with unique ids: tests use random client and PaymentIntent
 * ids). After every test the suite closes the store, then awaits `cleanup(store)` when given. `storage` opens the
 * further stores of the store id cases: by default `createStore` for new storage (right for a store that keeps
 * nothing); a persistent store's test passes how to open new storage and how to reopen a store's own.
 */
export function describeStoreConformance(
  name: string,
  createStore: () => Promise<Store>,
  cleanup?: (store: Store) => Promise<void>,
  storage?: StoreIdStorage,
): void {
  describe(`${name} store conformance`, () => {
    let store: Store;
    const get = () => store;
    beforeEach(async () => {
      store = await createStore();
    });
    afterEach(async () => {
      await store.close();
      await cleanup?.(store);
    });

    describe('clients: ensureClient, addBalance, getClient (CR-11.3, CR-11.4)', () => {
      it('getClient resolves null for an unknown client', async () => {
        expect(await store.getClient(newClientId())).toBeNull();
      });

      it('ensureClient creates a record with no balances and no top-ups', async () => {
        const id = newClientId();
        await store.ensureClient(id);
        const client = await store.getClient(id);
        expect(client).toEqual({ balances: {}, topUps: 0, createdAt: expect.any(String) });
        expectIsoTime(client!.createdAt);
      });

      it('ensureClient leaves an existing record untouched', async () => {
        const id = await fundedClient(store, 7);
        const before = await store.getClient(id);
        await store.ensureClient(id);
        expect(await store.getClient(id)).toEqual(before);
      });

      it('addBalance creates a missing client and accumulates', async () => {
        const id = newClientId();
        expect(await store.addBalance(id, 'usd', 5)).toBe(5);
        expect(await store.getClient(id)).toMatchObject({ balances: { usd: 5 }, topUps: 0 });
        expect(await store.addBalance(id, 'usd', 10)).toBe(15);
        expect(await balanceOf(store, id)).toBe(15);
      });

      it('getClient resolves a copy the caller cannot use to change the store', async () => {
        const id = await fundedClient(store, 3);
        const client = await store.getClient(id);
        client!.balances.usd = 1000;
        client!.balances.eur = 1000;
        expect((await store.getClient(id))?.balances).toEqual({ usd: 3 });
      });
    });

    describe('deductBalance (CR-11.2, CR-6.7)', () => {
      it('resolves insufficient for an unknown client and creates no record', async () => {
        const id = newClientId();
        expect(await deduct(store, id, 1)).toEqual(INSUFFICIENT);
        expect(await deduct(store, id, 0)).toEqual(INSUFFICIENT);
        expect(await store.getClient(id)).toBeNull();
      });

      it('subtracts a sufficient amount and resolves the new balance', async () => {
        const id = await fundedClient(store, 100);
        expect(await deduct(store, id, 30)).toEqual(deducted(70));
        expect(await balanceOf(store, id)).toBe(70);
      });

      it('resolves insufficient and changes nothing when the balance is too low', async () => {
        const id = await fundedClient(store, 10);
        expect(await deduct(store, id, 11)).toEqual(INSUFFICIENT);
        expect(await store.getClient(id)).toMatchObject({ balances: { usd: 10 }, topUps: 0 });
      });

      it('deducts exactly to zero, then refuses; the balance stays present at 0', async () => {
        const id = await fundedClient(store, 10);
        expect(await deduct(store, id, 10)).toEqual(deducted(0));
        expect(await deduct(store, id, 1)).toEqual(INSUFFICIENT);
        expect((await store.getClient(id))?.balances).toEqual({ usd: 0 });
      });

      it('accepts amount 0 and resolves the unchanged balance, also in a currency never held', async () => {
        const id = newClientId();
        await store.ensureClient(id);
        expect(await deduct(store, id, 0)).toEqual(deducted(0));
        expect((await store.getClient(id))?.balances).toEqual({});
        await store.addBalance(id, 'usd', 4);
        expect(await deduct(store, id, 0)).toEqual(deducted(4));
        expect(await deduct(store, id, 0, 'eur')).toEqual(deducted(0));
        expect((await store.getClient(id))?.balances).toEqual({ usd: 4 });
      });
    });

    describe('integers (CR-9.7)', () => {
      it('keeps balances above 2^31 and 2^32 exact', async () => {
        const id = newClientId();
        expect(await store.addBalance(id, 'usd', 2 ** 31 + 5)).toBe(2 ** 31 + 5);
        expect(await store.addBalance(id, 'usd', 2 ** 32)).toBe(2 ** 32 + 2 ** 31 + 5);
        expect(await deduct(store, id, 2 ** 31)).toEqual(deducted(2 ** 32 + 5));
        expect(await balanceOf(store, id)).toBe(2 ** 32 + 5);
      });

      it('keeps every value up to Number.MAX_SAFE_INTEGER exact', async () => {
        const id = newClientId();
        expect(await store.addBalance(id, 'usd', MAX - 100)).toBe(MAX - 100);
        expect(await store.addBalance(id, 'usd', 100)).toBe(MAX);
        expect(await balanceOf(store, id)).toBe(MAX);
        for (let expected = MAX - 1; expected >= MAX - 50; expected--) {
          expect(await deduct(store, id, 1)).toEqual(deducted(expected));
        }
        expect(await deduct(store, id, MAX - 50)).toEqual(deducted(0));
        const other = newClientId();
        expect((await store.creditTopUp({ clientId: other, currency: 'usd', amount: MAX, paymentIntentId: newPaymentIntentId() })).balance).toBe(MAX);
        expect(await store.getClient(other)).toMatchObject({ balances: { usd: MAX }, topUps: 1 });
        expect(await deduct(store, other, MAX)).toEqual(deducted(0));
      });

      it('rejects additions past Number.MAX_SAFE_INTEGER with a RangeError and changes nothing', async () => {
        const id = newClientId();
        await store.addBalance(id, 'usd', MAX - 1);
        await expectFailure(() => store.addBalance(id, 'usd', 2), RangeError);
        const paymentIntentId = newPaymentIntentId();
        await expectFailure(() => store.creditTopUp({ clientId: id, currency: 'usd', amount: 2, paymentIntentId }), RangeError);
        expect(await store.getClient(id)).toMatchObject({ balances: { usd: MAX - 1 }, topUps: 0 });
        expect(await store.listTransactions?.(id)).toEqual(store.listTransactions ? [] : undefined);
        await deduct(store, id, 1);
        expect(await store.creditTopUp({ clientId: id, currency: 'usd', amount: 2, paymentIntentId })).toEqual({ credited: true, balance: MAX });
      });

      it('checks the overflow per currency: a full usd balance does not stop eur', async () => {
        const id = newClientId();
        await store.addBalance(id, 'usd', MAX);
        expect(await store.addBalance(id, 'eur', MAX)).toBe(MAX);
        expect(await store.creditTopUp({ clientId: id, currency: 'gbp', amount: MAX, paymentIntentId: newPaymentIntentId() }))
          .toEqual({ credited: true, balance: MAX });
        expect((await store.getClient(id))?.balances).toEqual({ usd: MAX, eur: MAX, gbp: MAX });
      });
    });

    describe('creditTopUp (CR-11.5, CR-7.24)', () => {
      it('credits a PaymentIntent once', async () => {
        const id = newClientId();
        const credit = { clientId: id, currency: 'usd', amount: 500, paymentIntentId: newPaymentIntentId() };
        expect(await store.creditTopUp(credit)).toEqual({ credited: true, balance: 500 });
        expect(await store.creditTopUp(credit)).toEqual({ credited: false, balance: 500 });
        expect(await store.getClient(id)).toMatchObject({ balances: { usd: 500 }, topUps: 1 });
        const log = await store.listTransactions?.(id);
        if (log) expect(log.filter((r) => r.type === 'topup')).toHaveLength(1);
      });

      it('credits a different PaymentIntent again', async () => {
        const id = newClientId();
        await store.creditTopUp({ clientId: id, currency: 'usd', amount: 500, paymentIntentId: newPaymentIntentId() });
        expect(await store.creditTopUp({ clientId: id, currency: 'usd', amount: 250, paymentIntentId: newPaymentIntentId() }))
          .toEqual({ credited: true, balance: 750 });
        expect(await store.getClient(id)).toMatchObject({ balances: { usd: 750 }, topUps: 2 });
      });

      it('creates a missing client and adds to an existing balance', async () => {
        const id = newClientId();
        await store.creditTopUp({ clientId: id, currency: 'usd', amount: 40, paymentIntentId: newPaymentIntentId() });
        const client = await store.getClient(id);
        expect(client).toMatchObject({ balances: { usd: 40 }, topUps: 1 });
        expectIsoTime(client!.createdAt);
        const existing = await fundedClient(store, 60);
        expect((await store.creditTopUp({ clientId: existing, currency: 'usd', amount: 40, paymentIntentId: newPaymentIntentId() })).balance).toBe(100);
      });

      it('resolves the current balance when the PaymentIntent was already credited', async () => {
        const id = newClientId();
        const credit = { clientId: id, currency: 'usd', amount: 100, paymentIntentId: newPaymentIntentId() };
        await store.creditTopUp(credit);
        await deduct(store, id, 30);
        expect(await store.creditTopUp(credit)).toEqual({ credited: false, balance: 70 });
      });
    });

    describe('transaction log', () => {
      it('appends a topup record on credit and keeps records oldest first, per client', async ({ skip }) => {
        if (!store.recordTransaction || !store.listTransactions) return skip('the store keeps no transaction log');
        const id = newClientId();
        expect(await store.listTransactions(id)).toEqual([]);
        const first = newPaymentIntentId();
        await store.creditTopUp({ clientId: id, currency: 'usd', amount: 300, paymentIntentId: first });
        const deductions = [1, 2].map((n) => deductionRecord(id, n * 10, 'usd', `GET /paid/${n}`));
        for (const record of deductions) await store.recordTransaction(record);
        await store.creditTopUp({ clientId: id, currency: 'usd', amount: 5, paymentIntentId: newPaymentIntentId() });
        await store.recordTransaction({ ...deductions[0]!, id: randomUUID(), clientId: newClientId() });

        const log = await store.listTransactions(id);
        expect(log.map((r) => r.type)).toEqual(['topup', 'deduction', 'deduction', 'topup']);
        expect(log[1]).toEqual(deductions[0]);
        expect(log[2]).toEqual(deductions[1]);
        const topUp = log[0]!;
        expect(topUp).toMatchObject({ type: 'topup', clientId: id, currency: 'usd', amount: 300, paymentIntentId: first });
        expect(topUp.id).toMatch(UUID_V4);
        expect(topUp.resource).toBeUndefined();
        expectIsoTime(topUp.createdAt);
        expect(new Set(log.map((r) => r.id)).size).toBe(4);
      });

      it('does not change balances when recording', async ({ skip }) => {
        if (!store.recordTransaction) return skip('the store keeps no transaction log');
        const id = newClientId();
        await store.recordTransaction(deductionRecord(id, 5));
        expect(await store.getClient(id)).toBeNull();
      });
    });

    describe('input guards', () => {
      it('rejects invalid amounts with a RangeError', async () => {
        const id = newClientId();
        for (const bad of [-1, 1.5, Number.NaN, Infinity, MAX + 1]) {
          await expectFailure(() => deduct(store, id, bad), RangeError);
          await expectFailure(() => store.addBalance(id, 'usd', bad), RangeError);
        }
        await expectFailure(() => store.addBalance(id, 'usd', 0), RangeError);
        await expectFailure(() => store.creditTopUp({ clientId: id, currency: 'usd', amount: 0, paymentIntentId: 'pi_x' }), RangeError);
        await expectFailure(() => deduct(store, id, '5' as unknown as number), RangeError);
        expect(await store.getClient(id)).toBeNull();
      });

      it('rejects empty ids with a TypeError', async () => {
        await expectFailure(() => deduct(store, '', 1), TypeError);
        await expectFailure(() => store.addBalance('', 'usd', 1), TypeError);
        await expectFailure(() => store.ensureClient(''), TypeError);
        await expectFailure(() => store.getClient(''), TypeError);
        await expectFailure(() => store.creditTopUp({ clientId: '', currency: 'usd', amount: 1, paymentIntentId: 'pi_x' }), TypeError);
        await expectFailure(() => store.creditTopUp({ clientId: newClientId(), currency: 'usd', amount: 1, paymentIntentId: '' }), TypeError);
      });

      it('rejects a currency that is not a lowercase three-letter code with a TypeError, changing nothing', async () => {
        const id = await fundedClient(store, 10);
        for (const bad of ['USD', 'us', 'usdx', '', 'u$d', 5 as unknown as string, undefined as unknown as string]) {
          await expectFailure(() => store.deductBalance({ clientId: id, currency: bad, amount: 1 }), TypeError);
          await expectFailure(() => store.addBalance(id, bad, 1), TypeError);
          await expectFailure(() => store.creditTopUp({ clientId: id, currency: bad, amount: 1, paymentIntentId: newPaymentIntentId() }), TypeError);
        }
        expect(await store.getClient(id)).toMatchObject({ balances: { usd: 10 }, topUps: 0 });
      });

      it('rejects a deduction that is not an object with a TypeError', async () => {
        await expectFailure(() => store.deductBalance(null as unknown as Deduction), TypeError);
      });
    });

    describe('close', () => {
      it('is idempotent, and later calls reject', async () => {
        const closing = await createStore();
        await closing.close();
        await closing.close();
        await expectFailure(() => closing.getClient(newClientId()), Error);
        await expectFailure(() => deduct(closing, newClientId(), 1), Error);
        await cleanup?.(closing);
      });
    });

    describeCurrencyConformance(get);
    describeRequestConformance(get);
    describeRepeatClaimConformance(get);
    describeRefundConformance(get);
    describeRefundIdConformance(get);
    describeRefundRepeatConformance(get);
    describeStoreIdConformance(get, storage ?? { fresh: createStore, ...(cleanup ? { cleanup } : {}) });
    describeConcurrencyConformance(get);
    describeModelConformance(get);
    describeReversalConformance(get);
    describeLockConformance(get);
  });
}
