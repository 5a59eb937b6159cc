// Conformance property: any sequence of operations leaves the balance the model predicts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Store } from './store.ts';
import { newClientId } from './store-conformance-helpers.ts';

type Op =
  | { kind: 'add'; amount: number }
  | { kind: 'deduct'; amount: number }
  | { kind: 'credit'; amount: number; intent: number }
  | { kind: 'reverse'; amount: number; intent: number; key: number }
  | { kind: 'ensure' };

const amount = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 2 ** 40 }));
const intent = fc.integer({ min: 0, max: 4 });
const baseOps: fc.Arbitrary<Op>[] = [
  fc.record({ kind: fc.constant('add' as const), amount }),
  fc.record({ kind: fc.constant('deduct' as const), amount: fc.oneof(fc.integer({ min: 0, max: 1200 }), amount) }),
  fc.record({ kind: fc.constant('credit' as const), amount, intent }),
  fc.record({ kind: fc.constant('ensure' as const) }),
];
const reverseOp: fc.Arbitrary<Op> = fc.record({ kind: fc.constant('reverse' as const), amount, intent, key: fc.integer({ min: 0, max: 1 }) });

/** The reference model of one client: balance (null: no record), top-ups, credited and reversed PaymentIntents. */
class Model {
  balance: number | null = null;
  topUps = 0;
  readonly credited = new Map<number, number>();
  readonly reversals = new Map<number, Map<number, number>>();

  reversed(intent: number): number {
    return [...(this.reversals.get(intent)?.values() ?? [])].reduce((sum, value) => sum + value, 0);
  }
}

/** Registers the model-based property against the store `getStore()` returns inside each test. */
export function describeModelConformance(getStore: () => Store): void {
  describe('model', () => {
    it('matches a reference model for any sequence of add, deduct, credit, reverse and ensure', async () => {
      const store = getStore();
      const op = fc.oneof(...baseOps, ...(store.reverseTopUp ? [reverseOp] : []));
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
          const id = newClientId();
          const model = new Model();
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
                model.credited.set(o.intent, o.amount);
                model.balance = (model.balance ?? 0) + o.amount - Math.min(o.amount, model.reversed(o.intent));
                model.topUps++;
              }
              const result = await store.creditTopUp({ clientId: id, amount: o.amount, paymentIntentId: `pi_${id}_${o.intent}` });
              expect(result).toEqual({ credited, balance: model.balance ?? 0 });
            } else if (o.kind === 'reverse') {
              const keys = model.reversals.get(o.intent) ?? new Map<number, number>();
              const changed = o.amount > (keys.get(o.key) ?? 0);
              const units = model.credited.get(o.intent);
              let taken = 0;
              if (changed) {
                const before = model.reversed(o.intent);
                keys.set(o.key, o.amount);
                model.reversals.set(o.intent, keys);
                const after = model.reversed(o.intent);
                if (units !== undefined) taken = Math.min(units, after) - Math.min(units, before);
                if (units !== undefined) model.balance = model.balance! - taken;
              }
              const result = await store.reverseTopUp!({ paymentIntentId: `pi_${id}_${o.intent}`, key: `k${o.key}`, amount: o.amount });
              const credited = units !== undefined;
              expect(result).toEqual({ changed, taken, clientId: credited ? id : null, balance: credited ? model.balance : null });
            } else {
              model.balance ??= 0;
              await store.ensureClient(id);
            }
            const client = await store.getClient(id);
            expect(client === null ? null : client.balance).toBe(model.balance);
          }
          const client = await store.getClient(id);
          expect(client?.topUps ?? 0).toBe(model.topUps);
        }),
        { numRuns: 60 },
      );
    });
  });
}
