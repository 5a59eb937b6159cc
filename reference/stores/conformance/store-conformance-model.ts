// Conformance property: any sequence of operations leaves the balances the model predicts, per currency and request id.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Currency, DeductionResult, Store } from '../store.ts';
import { newClientId } from './store-conformance-helpers.ts';

type Op =
  | { kind: 'add'; currency: Currency; amount: number }
  | { kind: 'deduct'; currency: Currency; amount: number; request: { id: number; fingerprint: number } | null }
  | { kind: 'credit'; currency: Currency; amount: number; intent: number }
  | { kind: 'reverse'; amount: number; intent: number; key: number }
  | { kind: 'ensure' };

const currency = fc.constantFrom('usd', 'eur');
const amount = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 2 ** 40 }));
const intent = fc.integer({ min: 0, max: 4 });
/** Few ids, mostly one fingerprint, so repeats and conflicts are frequent; null: no request id. */
const request = fc.option(
  fc.record({ id: fc.integer({ min: 0, max: 1 }), fingerprint: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.constant(1), weight: 1 }) }),
  { freq: 3 },
);
const baseOps: fc.WeightedArbitrary<Op>[] = [
  { arbitrary: fc.record({ kind: fc.constant('add' as const), currency, amount }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('deduct' as const), currency, amount: fc.oneof(fc.integer({ min: 0, max: 1200 }), amount), request }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('credit' as const), currency, amount, intent }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('ensure' as const) }), weight: 1 },
];
const reverseOp: fc.WeightedArbitrary<Op> = {
  arbitrary: fc.record({ kind: fc.constant('reverse' as const), amount, intent, key: fc.integer({ min: 0, max: 1 }) }),
  weight: 2,
};

/** Request ids are kept far longer than a run, so the model never sees one expire. */
const TTL_MS = 600_000;

/**
 * The reference model of one client: balances per currency (null: no record), top-ups, credited and reversed
 * PaymentIntents, and kept request ids.
 */
class Model {
  balances: Record<Currency, number> | null = null;
  topUps = 0;
  readonly credited = new Map<number, { currency: Currency; amount: number }>();
  readonly reversals = new Map<number, Map<number, number>>();
  readonly requests = new Map<number, { fingerprint: number; repeated: boolean }>();

  balance(currency: Currency): number {
    return this.balances?.[currency] ?? 0;
  }

  add(currency: Currency, amount: number): number {
    this.balances ??= {};
    this.balances[currency] = this.balance(currency) + amount;
    return this.balances[currency];
  }

  reversed(intent: number): number {
    return [...(this.reversals.get(intent)?.values() ?? [])].reduce((sum, value) => sum + value, 0);
  }

  deduct(op: Extract<Op, { kind: 'deduct' }>): DeductionResult {
    const kept = op.request === null ? undefined : this.requests.get(op.request.id);
    if (op.request !== null && kept !== undefined) {
      if (kept.fingerprint !== op.request.fingerprint || kept.repeated) return { status: 'conflict' };
      kept.repeated = true;
      return { status: 'repeated', balance: this.balance(op.currency) };
    }
    if (this.balances === null || this.balance(op.currency) < op.amount) return { status: 'insufficient' };
    if (op.amount > 0) this.balances[op.currency] = this.balance(op.currency) - op.amount;
    if (op.request !== null) this.requests.set(op.request.id, { fingerprint: op.request.fingerprint, repeated: false });
    return { status: 'deducted', balance: this.balance(op.currency) };
  }
}

/** Registers the model-based property against the store `getStore()` returns inside each test. */
export function describeModelConformance(getStore: () => Store): void {
  describe('model', () => {
    it('matches a reference model for any sequence of add, deduct (with request ids), credit, reverse and ensure, in two currencies', async () => {
      const store = getStore();
      const op = fc.oneof(...baseOps, ...(store.reverseTopUp ? [reverseOp] : []));
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
          const id = newClientId();
          const model = new Model();
          for (const o of ops) {
            if (o.kind === 'add') {
              expect(await store.addBalance(id, o.currency, o.amount)).toBe(model.add(o.currency, o.amount));
            } else if (o.kind === 'deduct') {
              const request = o.request === null ? undefined : { id: `r${o.request.id}`, fingerprint: `f${o.request.fingerprint}`, ttlMs: TTL_MS };
              const expected = model.deduct(o);
              expect(await store.deductBalance({ clientId: id, currency: o.currency, amount: o.amount, ...(request && { request }) })).toEqual(expected);
            } else if (o.kind === 'credit') {
              const credited = !model.credited.has(o.intent);
              if (credited) {
                model.credited.set(o.intent, { currency: o.currency, amount: o.amount });
                model.add(o.currency, o.amount - Math.min(o.amount, model.reversed(o.intent)));
                model.topUps++;
              }
              const result = await store.creditTopUp({ clientId: id, currency: o.currency, amount: o.amount, paymentIntentId: `pi_${id}_${o.intent}` });
              expect(result).toEqual({ credited, balance: model.balance(o.currency) });
            } else if (o.kind === 'reverse') {
              const keys = model.reversals.get(o.intent) ?? new Map<number, number>();
              const changed = o.amount > (keys.get(o.key) ?? 0);
              const credit = model.credited.get(o.intent);
              let taken = 0;
              if (changed) {
                const before = model.reversed(o.intent);
                keys.set(o.key, o.amount);
                model.reversals.set(o.intent, keys);
                const after = model.reversed(o.intent);
                if (credit !== undefined) taken = Math.min(credit.amount, after) - Math.min(credit.amount, before);
                if (credit !== undefined) model.add(credit.currency, -taken);
              }
              const result = await store.reverseTopUp!({ paymentIntentId: `pi_${id}_${o.intent}`, key: `k${o.key}`, amount: o.amount });
              expect(result).toEqual(credit === undefined
                ? { changed, taken, clientId: null, currency: null, balance: null }
                : { changed, taken, clientId: id, currency: credit.currency, balance: model.balance(credit.currency) });
            } else {
              model.balances ??= {};
              await store.ensureClient(id);
            }
            const client = await store.getClient(id);
            expect(client === null ? null : client.balances).toEqual(model.balances);
          }
          const client = await store.getClient(id);
          expect(client?.topUps ?? 0).toBe(model.topUps);
        }),
        { numRuns: 60 },
      );
    });
  });
}
