// Conformance property: any sequence of operations leaves the balance the model predicts, never negative.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Store } from './store.ts';
import { newClientId } from './store-conformance-helpers.ts';

type Op =
  | { kind: 'add'; amount: number }
  | { kind: 'deduct'; amount: number }
  | { kind: 'credit'; amount: number; intent: number }
  | { kind: 'ensure' };

const amount = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 2 ** 40 }));
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), amount }),
  fc.record({ kind: fc.constant('deduct' as const), amount: fc.oneof(fc.integer({ min: 0, max: 1200 }), amount) }),
  fc.record({ kind: fc.constant('credit' as const), amount, intent: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('ensure' as const) }),
);

/** Registers the model-based property against the store `getStore()` returns inside each test. */
export function describeModelConformance(getStore: () => Store): void {
  describe('model', () => {
    it('matches a reference model for any sequence of add, deduct, credit and ensure', async () => {
      const store = getStore();
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
          const id = newClientId();
          const model = { balance: null as number | null, topUps: 0, credited: new Set<number>() };
          for (const o of ops) {
            if (o.kind === 'add') {
              model.balance = (model.balance ?? 0) + o.amount;
              expect(await store.addBalance(id, o.amount)).toBe(model.balance);
            } else if (o.kind === 'deduct') {
              const ok = model.balance !== null && model.balance >= o.amount;
              if (ok) model.balance = model.balance! - o.amount;
              expect(await store.deductBalance(id, o.amount)).toBe(ok ? model.balance : null);
            } else if (o.kind === 'credit') {
              const credited = !model.credited.has(o.intent);
              if (credited) {
                model.credited.add(o.intent);
                model.balance = (model.balance ?? 0) + o.amount;
                model.topUps++;
              }
              const result = await store.creditTopUp({ clientId: id, amount: o.amount, paymentIntentId: `pi_${id}_${o.intent}` });
              expect(result).toEqual({ credited, balance: model.balance ?? 0 });
            } else {
              model.balance ??= 0;
              await store.ensureClient(id);
            }
            const client = await store.getClient(id);
            expect(client === null ? null : client.balance).toBe(model.balance);
            expect(client?.balance ?? 0).toBeGreaterThanOrEqual(0);
          }
          const client = await store.getClient(id);
          expect(client?.topUps ?? 0).toBe(model.topUps);
        }),
        { numRuns: 60 },
      );
    });
  });
}
