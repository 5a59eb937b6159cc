// Conformance cases for repeat claims (CR-6.9): a request id's one repeat is claimed for a lease and used only when confirmed.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Deduction, DeductionRequest, Store } from '../store.ts';
import { balanceOf, deducted, deductionRecord, fundedClient, newRefundId, newRequestId } from './store-conformance-helpers.ts';

const CONFLICT = { status: 'conflict' } as const;
const BUSY = { status: 'busy' } as const;
const repeated = (balance: number) => ({ status: 'repeated', balance }) as const;

/** A kept request id with a claim of `leaseMs` (a minute unless given) under a fresh claim id. */
const claiming = (request: DeductionRequest, leaseMs = 60_000): DeductionRequest => ({ ...request, claim: { id: randomUUID(), leaseMs } });

/** A client with 100 usd whose request id was deducted 10 once; resolves the store's call shape for that id. */
async function keptDeduction(store: Store): Promise<{ clientId: string; call(leaseMs?: number): Deduction }> {
  const clientId = await fundedClient(store, 100);
  const request: DeductionRequest = { id: newRequestId(), fingerprint: 'GET /x usd 10', ttlMs: 60_000 };
  const call = (leaseMs?: number): Deduction => ({ clientId, currency: 'usd', amount: 10, request: claiming(request, leaseMs) });
  expect(await store.deductBalance({ ...call(), record: deductionRecord(clientId, 10) })).toEqual(deducted(90));
  return { clientId, call };
}

/** The confirmation of `call`'s claim. */
const confirmationOf = (call: Deduction) => ({ clientId: call.clientId, requestId: call.request?.id ?? '', claimId: call.request?.claim?.id ?? '' });

/** Registers the repeat-claim cases against the store `getStore()` returns; each is skipped when the store has no `confirmRepeat`. */
export function describeRepeatClaimConformance(getStore: () => Store): void {
  describe('repeat claims (CR-6.9)', () => {
    it('claims the repeat for one call: others are busy until it is confirmed, then every call conflicts', async ({ skip }) => {
      const store = getStore();
      if (!store.confirmRepeat) return skip('the store has no confirmRepeat');
      const { clientId, call } = await keptDeduction(store);
      const first = call();
      expect(await store.deductBalance(first)).toEqual(repeated(90));
      expect(await store.deductBalance(call())).toEqual(BUSY);
      await store.confirmRepeat(confirmationOf(first));
      expect(await store.deductBalance(call())).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(90);
      const log = await store.listTransactions?.(clientId);
      if (log) expect(log).toHaveLength(1);
    });

    it('lets an unconfirmed claim lapse: the next call claims the repeat again, and the lapsed claim confirms nothing', async ({ skip }) => {
      const store = getStore();
      if (!store.confirmRepeat) return skip('the store has no confirmRepeat');
      const { clientId, call } = await keptDeduction(store);
      const lost = call(100);
      expect(await store.deductBalance(lost)).toEqual(repeated(90));
      await sleep(250);
      const retry = call();
      expect(await store.deductBalance(retry)).toEqual(repeated(90));
      await store.confirmRepeat(confirmationOf(lost));
      expect(await store.deductBalance(call())).toEqual(BUSY);
      await store.confirmRepeat(confirmationOf(retry));
      expect(await store.deductBalance(call())).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(90);
    });

    it('gives the repeat to exactly one of many concurrent calls', async ({ skip }) => {
      const store = getStore();
      if (!store.confirmRepeat) return skip('the store has no confirmRepeat');
      const { call } = await keptDeduction(store);
      const results = await Promise.all(Array.from({ length: 10 }, () => store.deductBalance(call())));
      expect(results.filter((result) => result.status === 'repeated')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'busy')).toHaveLength(9);
    });

    it('answers concurrent first calls of one new id once deducted, once claimed and otherwise busy: the repeat stays unused', async ({ skip }) => {
      const store = getStore();
      if (!store.confirmRepeat) return skip('the store has no confirmRepeat');
      const clientId = await fundedClient(store, 100);
      const request: DeductionRequest = { id: newRequestId(), fingerprint: 'GET /x usd 10', ttlMs: 60_000 };
      const call = (): Deduction => ({ clientId, currency: 'usd', amount: 10, request: claiming(request) });
      const calls = Array.from({ length: 10 }, call);
      const results = await Promise.all(calls.map((one) => store.deductBalance(one)));
      expect(results.filter((result) => result.status === 'deducted')).toEqual([deducted(90)]);
      expect(results.filter((result) => result.status === 'repeated')).toEqual([repeated(90)]);
      expect(results.filter((result) => result.status === 'busy')).toHaveLength(8);
      const claimer = calls[results.findIndex((result) => result.status === 'repeated')] as Deduction;
      await store.confirmRepeat(confirmationOf(claimer));
      expect(await store.deductBalance(call())).toEqual(CONFLICT);
      expect(await balanceOf(store, clientId)).toBe(90);
    });

    it('confirms nothing for an id it does not keep, or a claim it never made', async ({ skip }) => {
      const store = getStore();
      if (!store.confirmRepeat) return skip('the store has no confirmRepeat');
      const { clientId, call } = await keptDeduction(store);
      await store.confirmRepeat({ clientId, requestId: newRequestId(), claimId: randomUUID() });
      await store.confirmRepeat({ ...confirmationOf(call()), claimId: randomUUID() });
      expect(await store.deductBalance(call())).toEqual(repeated(90));
    });

    it('answers another fingerprint conflict whatever the claim, and a refund leaves a claimed id kept (CR-6.9)', async ({ skip }) => {
      const store = getStore();
      if (!store.confirmRepeat) return skip('the store has no confirmRepeat');
      const { clientId, call } = await keptDeduction(store);
      const claimed = call();
      expect(await store.deductBalance(claimed)).toEqual(repeated(90));
      const other = call();
      expect(await store.deductBalance({ ...other, amount: 20, request: { ...(other.request as DeductionRequest), fingerprint: 'GET /y usd 20' } })).toEqual(CONFLICT);
      const requestId = claimed.request?.id ?? '';
      expect(await store.refundDeduction({ clientId, currency: 'usd', amount: 10, requestId, refundId: newRefundId() })).toEqual({ status: 'superseded', balance: 90 });
      expect(await store.deductBalance(call())).toEqual(BUSY);
      expect(await balanceOf(store, clientId)).toBe(90);
    });
  });
}
