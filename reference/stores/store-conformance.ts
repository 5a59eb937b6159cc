// The conformance suite every credit402 store passes; a store's test file calls describeStoreConformance.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store, TransactionRecord } from './store.ts';
import { describeConcurrencyConformance } from './store-conformance-concurrency.ts';
import { describeLockConformance } from './store-conformance-locks.ts';
import { describeModelConformance } from './store-conformance-model.ts';
import { describeReversalConformance } from './store-conformance-reversals.ts';
import { expectFailure, newClientId, newPaymentIntentId } from './store-conformance-helpers.ts';

const MAX = Number.MAX_SAFE_INTEGER;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function expectIsoTime(value: string): void {
  expect(new Date(value).toISOString()).toBe(value);
}

/**
 * Registers the store conformance suite with vitest. `createStore` runs before every test and must
 * resolve to a ready store (fresh, or shared with unique ids: tests use random client and PaymentIntent
 * ids). After every test the suite closes the store, then awaits `cleanup(store)` when given.
 */
export function describeStoreConformance(
  name: string,
  createStore: () => Promise<Store>,
  cleanup?: (store: Store) => Promise<void>,
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

      it('ensureClient creates a record with balance 0 and no top-ups', async () => {
        const id = newClientId();
        await store.ensureClient(id);
        const client = await store.getClient(id);
        expect(client).toMatchObject({ balance: 0, topUps: 0 });
        expectIsoTime(client!.createdAt);
      });

      it('ensureClient leaves an existing record untouched', async () => {
        const id = newClientId();
        await store.addBalance(id, 7);
        const before = await store.getClient(id);
        await store.ensureClient(id);
        expect(await store.getClient(id)).toEqual(before);
      });

      it('addBalance creates a missing client and accumulates', async () => {
        const id = newClientId();
        expect(await store.addBalance(id, 5)).toBe(5);
        expect(await store.getClient(id)).toMatchObject({ balance: 5, topUps: 0 });
        expect(await store.addBalance(id, 10)).toBe(15);
        expect((await store.getClient(id))?.balance).toBe(15);
      });

      it('getClient resolves a copy the caller cannot use to change the store', async () => {
        const id = newClientId();
        await store.addBalance(id, 3);
        const client = await store.getClient(id);
        client!.balance = 1000;
        expect((await store.getClient(id))?.balance).toBe(3);
      });
    });

    describe('deductBalance (CR-11.2, CR-6.7)', () => {
      it('resolves null for an unknown client and creates no record', async () => {
        const id = newClientId();
        expect(await store.deductBalance(id, 1)).toBeNull();
        expect(await store.deductBalance(id, 0)).toBeNull();
        expect(await store.getClient(id)).toBeNull();
      });

      it('subtracts a sufficient amount and resolves the new balance', async () => {
        const id = newClientId();
        await store.addBalance(id, 100);
        expect(await store.deductBalance(id, 30)).toBe(70);
        expect((await store.getClient(id))?.balance).toBe(70);
      });

      it('resolves null and changes nothing when the balance is insufficient', async () => {
        const id = newClientId();
        await store.addBalance(id, 10);
        expect(await store.deductBalance(id, 11)).toBeNull();
        expect(await store.getClient(id)).toMatchObject({ balance: 10, topUps: 0 });
      });

      it('deducts exactly to zero, then refuses', async () => {
        const id = newClientId();
        await store.addBalance(id, 10);
        expect(await store.deductBalance(id, 10)).toBe(0);
        expect(await store.deductBalance(id, 1)).toBeNull();
        expect((await store.getClient(id))?.balance).toBe(0);
      });

      it('accepts amount 0 and resolves the unchanged balance', async () => {
        const id = newClientId();
        await store.ensureClient(id);
        expect(await store.deductBalance(id, 0)).toBe(0);
        await store.addBalance(id, 4);
        expect(await store.deductBalance(id, 0)).toBe(4);
      });
    });

    describe('integers (CR-9.7)', () => {
      it('keeps balances above 2^31 and 2^32 exact', async () => {
        const id = newClientId();
        expect(await store.addBalance(id, 2 ** 31 + 5)).toBe(2 ** 31 + 5);
        expect(await store.addBalance(id, 2 ** 32)).toBe(2 ** 32 + 2 ** 31 + 5);
        expect(await store.deductBalance(id, 2 ** 31)).toBe(2 ** 32 + 5);
        expect((await store.getClient(id))?.balance).toBe(2 ** 32 + 5);
      });

      it('keeps every value up to Number.MAX_SAFE_INTEGER exact', async () => {
        const id = newClientId();
        expect(await store.addBalance(id, MAX - 100)).toBe(MAX - 100);
        expect(await store.addBalance(id, 100)).toBe(MAX);
        expect((await store.getClient(id))?.balance).toBe(MAX);
        for (let expected = MAX - 1; expected >= MAX - 50; expected--) {
          expect(await store.deductBalance(id, 1)).toBe(expected);
        }
        expect(await store.deductBalance(id, MAX - 50)).toBe(0);
        const other = newClientId();
        expect((await store.creditTopUp({ clientId: other, amount: MAX, paymentIntentId: newPaymentIntentId() })).balance).toBe(MAX);
        expect(await store.getClient(other)).toMatchObject({ balance: MAX, topUps: 1 });
        expect(await store.deductBalance(other, MAX)).toBe(0);
      });

      it('rejects additions past Number.MAX_SAFE_INTEGER with a RangeError and changes nothing', async () => {
        const id = newClientId();
        await store.addBalance(id, MAX - 1);
        await expectFailure(() => store.addBalance(id, 2), RangeError);
        const paymentIntentId = newPaymentIntentId();
        await expectFailure(() => store.creditTopUp({ clientId: id, amount: 2, paymentIntentId }), RangeError);
        expect(await store.getClient(id)).toMatchObject({ balance: MAX - 1, topUps: 0 });
        expect(await store.listTransactions?.(id)).toEqual(store.listTransactions ? [] : undefined);
        await store.deductBalance(id, 1);
        expect(await store.creditTopUp({ clientId: id, amount: 2, paymentIntentId })).toEqual({ credited: true, balance: MAX });
      });
    });

    describe('creditTopUp (CR-11.5, CR-7.24)', () => {
      it('credits a PaymentIntent once', async () => {
        const id = newClientId();
        const credit = { clientId: id, amount: 500, paymentIntentId: newPaymentIntentId() };
        expect(await store.creditTopUp(credit)).toEqual({ credited: true, balance: 500 });
        expect(await store.creditTopUp(credit)).toEqual({ credited: false, balance: 500 });
        expect(await store.getClient(id)).toMatchObject({ balance: 500, topUps: 1 });
        const log = await store.listTransactions?.(id);
        if (log) expect(log.filter((r) => r.type === 'topup')).toHaveLength(1);
      });

      it('credits a different PaymentIntent again', async () => {
        const id = newClientId();
        await store.creditTopUp({ clientId: id, amount: 500, paymentIntentId: newPaymentIntentId() });
        expect(await store.creditTopUp({ clientId: id, amount: 250, paymentIntentId: newPaymentIntentId() }))
          .toEqual({ credited: true, balance: 750 });
        expect(await store.getClient(id)).toMatchObject({ balance: 750, topUps: 2 });
      });

      it('creates a missing client and adds to an existing balance', async () => {
        const id = newClientId();
        await store.creditTopUp({ clientId: id, amount: 40, paymentIntentId: newPaymentIntentId() });
        const client = await store.getClient(id);
        expect(client).toMatchObject({ balance: 40, topUps: 1 });
        expectIsoTime(client!.createdAt);
        const existing = newClientId();
        await store.addBalance(existing, 60);
        expect((await store.creditTopUp({ clientId: existing, amount: 40, paymentIntentId: newPaymentIntentId() })).balance).toBe(100);
      });

      it('resolves the current balance when the PaymentIntent was already credited', async () => {
        const id = newClientId();
        const credit = { clientId: id, amount: 100, paymentIntentId: newPaymentIntentId() };
        await store.creditTopUp(credit);
        await store.deductBalance(id, 30);
        expect(await store.creditTopUp(credit)).toEqual({ credited: false, balance: 70 });
      });
    });

    describe('transaction log', () => {
      it('appends a topup record on credit and keeps records oldest first, per client', async ({ skip }) => {
        if (!store.recordTransaction || !store.listTransactions) return skip('the store keeps no transaction log');
        const id = newClientId();
        expect(await store.listTransactions(id)).toEqual([]);
        const first = newPaymentIntentId();
        await store.creditTopUp({ clientId: id, amount: 300, paymentIntentId: first });
        const deductions: TransactionRecord[] = [1, 2].map((n) => ({
          id: randomUUID(), type: 'deduction', clientId: id, amount: n * 10,
          createdAt: new Date().toISOString(), resource: `GET /paid/${n}`,
        }));
        for (const record of deductions) await store.recordTransaction(record);
        await store.creditTopUp({ clientId: id, amount: 5, paymentIntentId: newPaymentIntentId() });
        await store.recordTransaction({ ...deductions[0]!, id: randomUUID(), clientId: newClientId() });

        const log = await store.listTransactions(id);
        expect(log.map((r) => r.type)).toEqual(['topup', 'deduction', 'deduction', 'topup']);
        expect(log[1]).toEqual(deductions[0]);
        expect(log[2]).toEqual(deductions[1]);
        const topUp = log[0]!;
        expect(topUp).toMatchObject({ type: 'topup', clientId: id, amount: 300, paymentIntentId: first });
        expect(topUp.id).toMatch(UUID_V4);
        expect(topUp.resource).toBeUndefined();
        expectIsoTime(topUp.createdAt);
        expect(new Set(log.map((r) => r.id)).size).toBe(4);
      });

      it('does not change balances when recording', async ({ skip }) => {
        if (!store.recordTransaction) return skip('the store keeps no transaction log');
        const id = newClientId();
        await store.recordTransaction({ id: randomUUID(), type: 'deduction', clientId: id, amount: 5, createdAt: new Date().toISOString(), resource: 'GET /x' });
        expect(await store.getClient(id)).toBeNull();
      });
    });

    describe('input guards', () => {
      it('rejects invalid amounts with a RangeError', async () => {
        const id = newClientId();
        for (const bad of [-1, 1.5, Number.NaN, Infinity, MAX + 1]) {
          await expectFailure(() => store.deductBalance(id, bad), RangeError);
          await expectFailure(() => store.addBalance(id, bad), RangeError);
        }
        await expectFailure(() => store.addBalance(id, 0), RangeError);
        await expectFailure(() => store.creditTopUp({ clientId: id, amount: 0, paymentIntentId: 'pi_x' }), RangeError);
        await expectFailure(() => store.deductBalance(id, '5' as unknown as number), RangeError);
        expect(await store.getClient(id)).toBeNull();
      });

      it('rejects empty ids with a TypeError', async () => {
        await expectFailure(() => store.deductBalance('', 1), TypeError);
        await expectFailure(() => store.addBalance('', 1), TypeError);
        await expectFailure(() => store.ensureClient(''), TypeError);
        await expectFailure(() => store.getClient(''), TypeError);
        await expectFailure(() => store.creditTopUp({ clientId: '', amount: 1, paymentIntentId: 'pi_x' }), TypeError);
        await expectFailure(() => store.creditTopUp({ clientId: newClientId(), amount: 1, paymentIntentId: '' }), TypeError);
      });
    });

    describe('close', () => {
      it('is idempotent, and later calls reject', async () => {
        const closing = await createStore();
        await closing.close();
        await closing.close();
        await expectFailure(() => closing.getClient(newClientId()), Error);
        await expectFailure(() => closing.deductBalance(newClientId(), 1), Error);
        await cleanup?.(closing);
      });
    });

    describeConcurrencyConformance(get);
    describeModelConformance(get);
    describeReversalConformance(get);
    describeLockConformance(get);
  });
}
