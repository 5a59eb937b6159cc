// Conformance cases for a refund against its request id's repeat (CR-6.9): whichever reaches the store second sees the first, so a served repeat is never refunded.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Deduction, DeductionRefund, DeductionRequest, Store } from '../store.ts';
import {
  BUSY, CONFLICT, balanceOf, confirmationOf, deducted, deductionRecord, fundedClient, newRefundId, newRequestId, refunded, repeated, type Skip,
  storeWith, superseded,
} from './store-conformance-helpers.ts';

/** A client with 100 usd whose request id was deducted 10 once, with its record; the calls and the refund of that id. */
async function keptDeduction<S extends Store>(store: S): Promise<{
  store: S;
  clientId: string;
  recordId: string;
  /** A call with the id: claiming the repeat for `leaseMs` (a minute unless given), or without a claim (`null`). */
  call(leaseMs?: number | null): Deduction;
  /** The deduction's refund under a fresh refund id. */
  refund(): DeductionRefund;
}> {
  const clientId = await fundedClient(store, 100);
  const request: DeductionRequest = { id: newRequestId(), fingerprint: 'GET /x usd 10', ttlMs: 60_000 };
  const call = (leaseMs: number | null = 60_000): Deduction => ({
    clientId, currency: 'usd', amount: 10, request: leaseMs === null ? request : { ...request, claim: { id: randomUUID(), leaseMs } },
  });
  const record = deductionRecord(clientId, 10);
  expect(await store.deductBalance({ ...call(null), record })).toEqual(deducted(90));
  const refund = (): DeductionRefund => ({ clientId, currency: 'usd', amount: 10, recordId: record.id, requestId: request.id, refundId: newRefundId() });
  return { store, clientId, recordId: record.id, call, refund };
}

/** The ids of the client's log, or undefined for a store without one. */
async function logIds(store: Store, clientId: string): Promise<string[] | undefined> {
  return (await store.listTransactions?.(clientId))?.map((record) => record.id);
}

/** Registers the cases of a refund racing its request id's repeat against the store `getStore()` returns inside each test. */
export function describeRefundRepeatConformance(getStore: () => Store): void {
  const claimingStore = (skip: Skip) => storeWith(getStore, ['confirmRepeat'], skip, 'the store has no confirmRepeat');

  describe('refundDeduction after the repeat was answered (CR-6.9)', () => {
    it('a repeat used without a claim supersedes the refund: nothing changes, and again under the same refund id', async () => {
      const { store, clientId, recordId, call, refund } = await keptDeduction(getStore());
      expect(await store.deductBalance(call(null))).toEqual(repeated(90));
      const late = refund();
      expect(await store.refundDeduction(late)).toEqual(superseded(90));
      // A superseded refund keeps no refund id: its next attempt looks again and is superseded again.
      expect(await store.refundDeduction({ ...late })).toEqual(superseded(90));
      expect(await balanceOf(store, clientId)).toBe(90);
      expect(await logIds(store, clientId)).toEqual(store.listTransactions ? [recordId] : undefined);
      // The repeat still counts as used: the id is kept, not forgotten.
      expect(await store.deductBalance(call(null))).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(90);
    });

    it('a claim that holds supersedes the refund; the claim still holds, and its confirmation uses the repeat', async ({ skip }) => {
      const { store, clientId, recordId, call, refund } = await keptDeduction(claimingStore(skip));
      const claimed = call();
      expect(await store.deductBalance(claimed)).toEqual(repeated(90));
      expect(await store.refundDeduction(refund())).toEqual(superseded(90));
      expect(await store.deductBalance(call())).toEqual(BUSY);
      await store.confirmRepeat(confirmationOf(claimed));
      expect(await store.deductBalance(call())).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(90);
      expect(await logIds(store, clientId)).toEqual(store.listTransactions ? [recordId] : undefined);
    });

    it('a confirmed claim supersedes the refund', async ({ skip }) => {
      const { store, clientId, call, refund } = await keptDeduction(claimingStore(skip));
      const claimed = call();
      expect(await store.deductBalance(claimed)).toEqual(repeated(90));
      await store.confirmRepeat(confirmationOf(claimed));
      expect(await store.refundDeduction(refund())).toEqual(superseded(90));
      expect(await store.deductBalance(call())).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(90);
    });

    it('a lapsed claim supersedes the refund too (its answer may have been served); the repeat can be claimed again', async ({ skip }) => {
      const { store, clientId, call, refund } = await keptDeduction(claimingStore(skip));
      expect(await store.deductBalance(call(100))).toEqual(repeated(90));
      await sleep(250);
      expect(await store.refundDeduction(refund())).toEqual(superseded(90));
      expect(await store.deductBalance(call())).toEqual(repeated(90));
      expect(await balanceOf(store, clientId)).toBe(90);
    });

    it('a refund before any repeat applies: the next call with the id is deducted anew, and its repeat then supersedes a second refund', async ({ skip }) => {
      const { store, clientId, call, refund } = await keptDeduction(claimingStore(skip));
      const first = refund();
      expect(await store.refundDeduction(first)).toEqual(refunded(100));
      expect(await store.deductBalance(call())).toEqual(deducted(90));
      const claimed = call();
      expect(await store.deductBalance(claimed)).toEqual(repeated(90));
      // The first refund's id is kept: a late attempt of it answers that it was applied, and changes nothing.
      expect(await store.refundDeduction({ ...first })).toEqual(refunded(90));
      // A refund of the new deduction comes after its repeat was claimed.
      expect(await store.refundDeduction(refund())).toEqual(superseded(90));
      expect(await balanceOf(store, clientId)).toBe(90);
    });

    it('an expired id kept again starts unclaimed: the refund of its new deduction applies', async ({ skip }) => {
      const store = claimingStore(skip);
      const clientId = await fundedClient(store, 100);
      const request: DeductionRequest = { id: newRequestId(), fingerprint: 'GET /x usd 10', ttlMs: 100 };
      const call = (): Deduction => ({ clientId, currency: 'usd', amount: 10, request: { ...request, claim: { id: randomUUID(), leaseMs: 60_000 } } });
      expect(await store.deductBalance(call())).toEqual(deducted(90));
      expect(await store.deductBalance(call())).toEqual(repeated(90));
      await sleep(250);
      expect(await store.deductBalance(call())).toEqual(deducted(80));
      expect(await store.refundDeduction({ clientId, currency: 'usd', amount: 10, requestId: request.id, refundId: newRefundId() })).toEqual(refunded(90));
    });

    it('a refund racing claims of the repeat: either the refund applies and the claim deducts anew, or the claim is served and the refund is superseded', async () => {
      const store = getStore();
      const rounds = await Promise.all(Array.from({ length: 10 }, async () => {
        const { clientId, call, refund } = await keptDeduction(store);
        const retry = call(store.confirmRepeat ? 60_000 : null);
        const [given, answered] = await Promise.all([store.refundDeduction(refund()), store.deductBalance(retry)]);
        return { given, answered, balance: await balanceOf(store, clientId) };
      }));
      for (const { given, answered, balance } of rounds) {
        // One deduction stands in both orders: the first (the refund superseded) or the new one (the refund applied first).
        expect(balance).toBe(90);
        if (given.status === 'refunded') expect(answered).toEqual(deducted(90));
        else expect([given, answered]).toEqual([superseded(90), repeated(90)]);
      }
    });
  });
}
