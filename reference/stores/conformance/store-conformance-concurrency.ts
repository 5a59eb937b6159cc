// Conformance cases for concurrent calls: no overdraft, no lost update, one credit per PaymentIntent, one deduction per request id.
import { describe, expect, it } from 'vitest';
import type { Store } from '../store.ts';
import { balanceOf, deduct, deductionRecord, newClientId, newPaymentIntentId, newRequestId, fundedClient } from './store-conformance-helpers.ts';

/** Registers the concurrency cases against the store `getStore()` returns inside each test. */
export function describeConcurrencyConformance(getStore: () => Store): void {
  describe('concurrency', () => {
    it('200 concurrent deductions against a balance worth 100 succeed exactly 100 times', async () => {
      const store = getStore();
      const id = await fundedClient(store, 100);
      const results = await Promise.all(Array.from({ length: 200 }, () => deduct(store, id, 1)));
      const successes = results.flatMap((r) => (r.status === 'deducted' ? [r.balance] : []));
      expect(successes).toHaveLength(100);
      expect(results.filter((r) => r.status === 'insufficient')).toHaveLength(100);
      expect(new Set(successes)).toEqual(new Set(Array.from({ length: 100 }, (_, i) => i)));
      expect(await balanceOf(store, id)).toBe(0);
    });

    it('concurrent additions lose no update, in each currency', async () => {
      const store = getStore();
      const id = newClientId();
      await Promise.all(Array.from({ length: 100 }, (_, i) => store.addBalance(id, i % 2 ? 'usd' : 'eur', 3)));
      expect((await store.getClient(id))?.balances).toEqual({ usd: 150, eur: 150 });
    });

    it('20 concurrent credits of one PaymentIntent credit exactly once', async () => {
      const store = getStore();
      const id = newClientId();
      const credit = { clientId: id, currency: 'usd', amount: 1000, paymentIntentId: newPaymentIntentId() };
      const results = await Promise.all(Array.from({ length: 20 }, () => store.creditTopUp(credit)));
      expect(results.filter((r) => r.credited)).toHaveLength(1);
      expect(await store.getClient(id)).toMatchObject({ balances: { usd: 1000 }, topUps: 1 });
      const log = await store.listTransactions?.(id);
      if (log) expect(log.filter((r) => r.type === 'topup')).toHaveLength(1);
    });

    it('concurrent credits of distinct PaymentIntents and deductions all apply', async () => {
      const store = getStore();
      const id = newClientId();
      await store.ensureClient(id);
      const credits = Array.from({ length: 30 }, () => store.creditTopUp({ clientId: id, currency: 'usd', amount: 10, paymentIntentId: newPaymentIntentId() }));
      const deductions = Array.from({ length: 30 }, () => deduct(store, id, 1));
      const [credited, deducted] = await Promise.all([Promise.all(credits), Promise.all(deductions)]);
      expect(credited.every((r) => r.credited)).toBe(true);
      const successes = deducted.filter((r) => r.status === 'deducted').length;
      expect(await store.getClient(id)).toMatchObject({ balances: { usd: 300 - successes }, topUps: 30 });
    });

    it('CR-6.9 20 concurrent calls with one request id deduct exactly once: one repeat, the rest conflicts', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      const request = { id: newRequestId(), fingerprint: 'GET /x usd 10', ttlMs: 60_000 };
      const results = await Promise.all(Array.from({ length: 20 }, () =>
        store.deductBalance({ clientId, currency: 'usd', amount: 10, record: deductionRecord(clientId, 10), request })));
      expect(results.filter((r) => r.status === 'deducted')).toEqual([{ status: 'deducted', balance: 90 }]);
      expect(results.filter((r) => r.status === 'repeated')).toEqual([{ status: 'repeated', balance: 90 }]);
      expect(results.filter((r) => r.status === 'conflict')).toHaveLength(18);
      expect(await balanceOf(store, clientId)).toBe(90);
      const log = await store.listTransactions?.(clientId);
      if (log) expect(log).toHaveLength(1);
    });

    it('deductions of several clients asked together each behave as if alone: records only for those that succeed', async () => {
      const store = getStore();
      const [rich, poor, unknown] = [newClientId(), newClientId(), newClientId()];
      await store.addBalance(rich, 'usd', 10);
      await store.addBalance(poor, 'usd', 2);
      const request = { id: newRequestId(), fingerprint: 'GET /x usd 1', ttlMs: 60_000 };
      const asked = [
        { clientId: rich, amount: 4 }, { clientId: poor, amount: 3 }, { clientId: unknown, amount: 1 },
        { clientId: rich, amount: 6 }, { clientId: poor, amount: 2 }, { clientId: rich, amount: 11 },
      ];
      const results = await Promise.all([
        ...asked.map(({ clientId, amount }) => store.deductBalance({ clientId, currency: 'usd', amount, record: deductionRecord(clientId, amount) })),
        store.deductBalance({ clientId: poor, currency: 'usd', amount: 0, record: deductionRecord(poor, 0), request }),
      ]);
      // In any order: rich's 4 and 6 fit, 11 never does; poor's 3 never fits, 2 and 0 do; the unknown client has nothing.
      expect(results.map((r) => r.status)).toEqual(['deducted', 'insufficient', 'insufficient', 'deducted', 'deducted', 'insufficient', 'deducted']);
      expect((await store.getClient(rich))?.balances.usd).toBe(0);
      expect((await store.getClient(poor))?.balances.usd).toBe(0);
      expect(await store.getClient(unknown)).toBeNull();
      const amounts = async (id: string) => (await store.listTransactions?.(id))?.map((r) => r.amount).sort((a, b) => a - b);
      if (store.listTransactions) {
        expect(await amounts(rich)).toEqual([4, 6]);
        expect(await amounts(poor)).toEqual([0, 2]);
      }
    });

    it('CR-6.9 concurrent calls with distinct request ids each deduct, never overdrawing', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 50);
      const results = await Promise.all(Array.from({ length: 80 }, () =>
        store.deductBalance({ clientId, currency: 'usd', amount: 1, request: { id: newRequestId(), fingerprint: 'f', ttlMs: 60_000 } })));
      expect(results.filter((r) => r.status === 'deducted')).toHaveLength(50);
      expect(results.filter((r) => r.status === 'insufficient')).toHaveLength(30);
      expect(await balanceOf(store, clientId)).toBe(0);
    });
  });
}
