// Conformance cases for request ids (CR-6.9): a deduction kept per (client, request id) answers one repeat, then conflicts.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Deduction, DeductionRequest, Store } from '../store.ts';
import {
  INSUFFICIENT, balanceOf, deduct, deducted, deductionRecord, expectFailure, newClientId, newRequestId, fundedClient
} from './store-conformance-helpers.ts';

const CONFLICT = { status: 'conflict' } as const;
const repeated = (balance: number) => ({ status: 'repeated', balance }) as const;

/** A request id kept for a minute: far longer than any test. */
const request = (id = newRequestId(), fingerprint = 'GET /x usd 10'): DeductionRequest => ({ id, fingerprint, ttlMs: 60_000 });

/** Registers the request id cases against the store `getStore()` returns inside each test. */
export function describeRequestConformance(getStore: () => Store): void {
  describe('request ids (CR-6.9)', () => {
    it('deducts once, answers the first repeat with the current balance and no record, then conflicts', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      const kept = request();
      const call = (): Deduction => ({ clientId, currency: 'usd', amount: 10, record: deductionRecord(clientId, 10), request: kept });
      const first = call();
      expect(await store.deductBalance(first)).toEqual(deducted(90));
      expect(await deduct(store, clientId, 5)).toEqual(deducted(85));
      expect(await store.deductBalance(call())).toEqual(repeated(85));
      expect(await store.deductBalance(call())).toEqual(CONFLICT);
      expect(await store.deductBalance(call())).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(85);
      const log = await store.listTransactions?.(clientId);
      if (log) expect(log).toEqual([first.record]);
    });

    it('answers the repeat even when the balance could no longer pay for it', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 10);
      const kept = request();
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 10, request: kept })).toEqual(deducted(0));
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 10, request: kept })).toEqual(repeated(0));
    });

    it('answers another fingerprint with conflict, changing nothing and leaving the one repeat to the same fingerprint', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      const kept = request(newRequestId(), 'GET /x usd 10');
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 10, request: kept })).toEqual(deducted(90));
      const other = { ...kept, fingerprint: 'GET /y usd 20' };
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 20, request: other })).toEqual(CONFLICT);
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 20, request: other })).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(90);
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 10, request: kept })).toEqual(repeated(90));
      expect(await store.deductBalance({ clientId, currency: 'usd', amount: 10, request: kept })).toEqual(CONFLICT);
    });

    it('keeps nothing for an insufficient deduction: a later call with the id deducts', async () => {
      const store = getStore();
      const clientId = newClientId();
      const kept = request();
      const call: Deduction = { clientId, currency: 'usd', amount: 10, request: kept };
      expect(await store.deductBalance(call)).toEqual(INSUFFICIENT); // unknown client
      await store.addBalance(clientId, 'usd', 5);
      expect(await store.deductBalance(call)).toEqual(INSUFFICIENT); // too low a balance
      expect(await store.deductBalance(call)).toEqual(INSUFFICIENT);
      await store.addBalance(clientId, 'usd', 5);
      expect(await store.deductBalance(call)).toEqual(deducted(0));
      expect(await store.deductBalance(call)).toEqual(repeated(0));
    });

    it('forgets a kept id after its ttlMs: the id then deducts again', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      // Long enough that three calls fit inside it on a busy machine (50 ms did not, on Postgres under load).
      const short: DeductionRequest = { id: newRequestId(), fingerprint: 'f', ttlMs: 1_000 };
      const call: Deduction = { clientId, currency: 'usd', amount: 10, request: short };
      expect(await store.deductBalance(call)).toEqual(deducted(90));
      await sleep(1_200);
      expect(await store.deductBalance(call)).toEqual(deducted(80));
      expect(await store.deductBalance(call)).toEqual(repeated(80));
      expect(await store.deductBalance(call)).toEqual(CONFLICT);
      await sleep(1_200);
      expect(await store.deductBalance({ ...call, request: { ...short, fingerprint: 'other' } })).toEqual(deducted(70));
    });

    it('keeps request ids per client, and a call without one is always a new deduction', async () => {
      const store = getStore();
      const [a, b] = [newClientId(), newClientId()];
      await store.addBalance(a, 'usd', 10);
      await store.addBalance(b, 'usd', 10);
      const kept = request();
      expect(await store.deductBalance({ clientId: a, currency: 'usd', amount: 1, request: kept })).toEqual(deducted(9));
      expect(await store.deductBalance({ clientId: b, currency: 'usd', amount: 1, request: kept })).toEqual(deducted(9));
      expect(await deduct(store, a, 1)).toEqual(deducted(8));
      expect(await deduct(store, a, 1)).toEqual(deducted(7));
      expect(await store.deductBalance({ clientId: a, currency: 'usd', amount: 1, request: kept })).toEqual(repeated(7));
    });

    it('keeps a deduction of amount 0 like any other', async () => {
      const store = getStore();
      const clientId = newClientId();
      await store.ensureClient(clientId);
      const kept = request();
      expect(await store.deductBalance({ clientId, currency: 'eur', amount: 0, request: kept })).toEqual(deducted(0));
      expect(await store.deductBalance({ clientId, currency: 'eur', amount: 0, request: kept })).toEqual(repeated(0));
      expect(await store.deductBalance({ clientId, currency: 'eur', amount: 0, request: kept })).toEqual(CONFLICT);
      expect((await store.getClient(clientId))?.balances).toEqual({});
    });

    it('rejects an invalid request, changing nothing and keeping nothing', async () => {
      const store = getStore();
      const clientId = await fundedClient(store, 100);
      const id = newRequestId();
      const call = (bad: unknown): Promise<unknown> =>
        store.deductBalance({ clientId, currency: 'usd', amount: 10, request: bad as DeductionRequest });
      await expectFailure(() => call({ id, fingerprint: 'f', ttlMs: 0 }), RangeError);
      await expectFailure(() => call({ id, fingerprint: 'f', ttlMs: -1 }), RangeError);
      await expectFailure(() => call({ id, fingerprint: 'f', ttlMs: 1.5 }), RangeError);
      await expectFailure(() => call({ id, fingerprint: 'f' }), RangeError);
      await expectFailure(() => call({ id: '', fingerprint: 'f', ttlMs: 1000 }), TypeError);
      await expectFailure(() => call({ id, fingerprint: '', ttlMs: 1000 }), TypeError);
      await expectFailure(() => call(null), TypeError);
      await expectFailure(() => call('req-1'), TypeError);
      expect(await balanceOf(store, clientId)).toBe(100);
      expect(await call({ id, fingerprint: 'f', ttlMs: 60_000 })).toEqual(deducted(90));
    });
  });
}
