// Conformance cases for concurrent calls: no overdraft, no lost update, one credit per PaymentIntent, one deduction per request id.
import { describe, expect, it } from 'vitest';
import type { Store } from './store.ts';
import { balanceOf, deduct, deductionRecord, newClientId, newPaymentIntentId, newRequestId } from './store-conformance-helpers.ts';

/** Registers the concurrency cases against the store `getStore()` returns inside each test. */
export function describeConcurrencyConformance(getStore: () => Store): void {
  describe('concurrency', () => {
    it('200 concurrent deductions against a balance worth 100 succeed exactly 100 times', async () => {
      const store = getStore();
      const id = newClientId();
      await store.addBalance(id, 'usd', 100);
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
      const clientId = newClientId();
      await store.addBalance(clientId, 'usd', 100);
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

    it('CR-6.9 concurrent calls with distinct request ids each deduct, never overdrawing', async () => {
      const store = getStore();
      const clientId = newClientId();
      await store.addBalance(clientId, 'usd', 50);
      const results = await Promise.all(Array.from({ length: 80 }, () =>
        store.deductBalance({ clientId, currency: 'usd', amount: 1, request: { id: newRequestId(), fingerprint: 'f', ttlMs: 60_000 } })));
      expect(results.filter((r) => r.status === 'deducted')).toHaveLength(50);
      expect(results.filter((r) => r.status === 'insufficient')).toHaveLength(30);
      expect(await balanceOf(store, clientId)).toBe(0);
    });
  });
}
