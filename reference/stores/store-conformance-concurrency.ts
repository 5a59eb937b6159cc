// Conformance cases for concurrent calls: no overdraft, no lost update, one credit per PaymentIntent.
import { describe, expect, it } from 'vitest';
import type { Store } from './store.ts';
import { newClientId, newPaymentIntentId } from './store-conformance-helpers.ts';

/** Registers the concurrency cases against the store `getStore()` returns inside each test. */
export function describeConcurrencyConformance(getStore: () => Store): void {
  describe('concurrency', () => {
    it('200 concurrent deductions against a balance worth 100 succeed exactly 100 times', async () => {
      const store = getStore();
      const id = newClientId();
      await store.addBalance(id, 100);
      const results = await Promise.all(Array.from({ length: 200 }, () => store.deductBalance(id, 1)));
      const successes = results.filter((r): r is number => r !== null);
      expect(successes).toHaveLength(100);
      expect(new Set(successes)).toEqual(new Set(Array.from({ length: 100 }, (_, i) => i)));
      expect((await store.getClient(id))?.balance).toBe(0);
    });

    it('concurrent additions lose no update', async () => {
      const store = getStore();
      const id = newClientId();
      await Promise.all(Array.from({ length: 100 }, () => store.addBalance(id, 3)));
      expect((await store.getClient(id))?.balance).toBe(300);
    });

    it('20 concurrent credits of one PaymentIntent credit exactly once', async () => {
      const store = getStore();
      const id = newClientId();
      const credit = { clientId: id, amount: 1000, paymentIntentId: newPaymentIntentId() };
      const results = await Promise.all(Array.from({ length: 20 }, () => store.creditTopUp(credit)));
      expect(results.filter((r) => r.credited)).toHaveLength(1);
      expect(await store.getClient(id)).toMatchObject({ balance: 1000, topUps: 1 });
      const log = await store.listTransactions?.(id);
      if (log) expect(log.filter((r) => r.type === 'topup')).toHaveLength(1);
    });

    it('concurrent credits of distinct PaymentIntents and deductions all apply', async () => {
      const store = getStore();
      const id = newClientId();
      await store.ensureClient(id);
      const credits = Array.from({ length: 30 }, () => store.creditTopUp({ clientId: id, amount: 10, paymentIntentId: newPaymentIntentId() }));
      const deductions = Array.from({ length: 30 }, () => store.deductBalance(id, 1));
      const [credited, deducted] = await Promise.all([Promise.all(credits), Promise.all(deductions)]);
      expect(credited.every((r) => r.credited)).toBe(true);
      const successes = deducted.filter((r) => r !== null).length;
      expect(await store.getClient(id)).toMatchObject({ balance: 300 - successes, topUps: 30 });
    });
  });
}
