// Conformance cases for repeat claims (CR-6.9): a request id's one repeat is claimed for a lease and used only when confirmed.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Deduction, DeductionRequest, Store } from '../store.ts';
import {
  BUSY, CONFLICT, balanceOf, confirmationOf, deducted, deductionRecord, fundedClient, newRefundId, newRequestId, repeated, type Skip, storeWith,
  superseded,
} from './store-conformance-helpers.ts';

type ClaimingStore = Store & Required<Pick<Store, 'confirmRepeat'>>;

/** A kept request id with a claim of `leaseMs` (a minute unless given) under a fresh claim id. */
const claiming = (request: DeductionRequest, leaseMs = 60_000): DeductionRequest => ({ ...request, claim: { id: randomUUID(), leaseMs } });

/** A client of `store` with 100 usd, and calls of 10 usd under one fresh request id, each claiming its repeat for `leaseMs` (a minute unless given). */
async function claimingClient(store: ClaimingStore): Promise<{ store: ClaimingStore; clientId: string; call(leaseMs?: number): Deduction }> {
  const clientId = await fundedClient(store, 100);
  const request: DeductionRequest = { id: newRequestId(), fingerprint: 'GET /x usd 10', ttlMs: 60_000 };
  return { store, clientId, call: (leaseMs) => ({ clientId, currency: 'usd', amount: 10, request: claiming(request, leaseMs) }) };
}

/** A {@link claimingClient} whose request id was deducted once, with its record: the balance is 90, the repeat unused. */
async function keptDeduction(store: ClaimingStore): ReturnType<typeof claimingClient> {
  const kept = await claimingClient(store);
  expect(await store.deductBalance({ ...kept.call(), record: deductionRecord(kept.clientId, 10) })).toEqual(deducted(90));
  return kept;
}

/** Confirms the claim of `claimed`, which uses the repeat up: `next`, with the same id, conflicts, and the balance stays 90. */
async function confirmUsingTheRepeat(store: ClaimingStore, claimed: Deduction, next: Deduction): Promise<void> {
  await store.confirmRepeat(confirmationOf(claimed));
  expect(await store.deductBalance(next)).toEqual(CONFLICT);
  expect(await balanceOf(store, claimed.clientId)).toBe(90);
}

/** Registers the repeat-claim cases against the store `getStore()` returns; each is skipped when the store has no `confirmRepeat`. */
export function describeRepeatClaimConformance(getStore: () => Store): void {
  const claimingStore = (skip: Skip): ClaimingStore => storeWith(getStore, ['confirmRepeat'], skip, 'the store has no confirmRepeat');

  describe('repeat claims (CR-6.9)', () => {
    it('claims the repeat for one call: others are busy until it is confirmed, then every call conflicts', async ({ skip }) => {
      const { store, clientId, call } = await keptDeduction(claimingStore(skip));
      const first = call();
      expect(await store.deductBalance(first)).toEqual(repeated(90));
      expect(await store.deductBalance(call())).toEqual(BUSY);
      await confirmUsingTheRepeat(store, first, call());
      const log = await store.listTransactions?.(clientId);
      if (log) expect(log).toHaveLength(1);
    });

    it('lets an unconfirmed claim lapse: the next call claims the repeat again, and the lapsed claim confirms nothing', async ({ skip }) => {
      const { store, call } = await keptDeduction(claimingStore(skip));
      const lost = call(100);
      expect(await store.deductBalance(lost)).toEqual(repeated(90));
      await sleep(250);
      const retry = call();
      expect(await store.deductBalance(retry)).toEqual(repeated(90));
      await store.confirmRepeat(confirmationOf(lost));
      expect(await store.deductBalance(call())).toEqual(BUSY);
      await confirmUsingTheRepeat(store, retry, call());
    });

    it('gives the repeat to exactly one of many concurrent calls', async ({ skip }) => {
      const { store, call } = await keptDeduction(claimingStore(skip));
      const results = await Promise.all(Array.from({ length: 10 }, () => store.deductBalance(call())));
      expect(results.filter((result) => result.status === 'repeated')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'busy')).toHaveLength(9);
    });

    it('answers concurrent first calls of one new id once deducted, once claimed and otherwise busy: the repeat stays unused', async ({ skip }) => {
      const { store, call } = await claimingClient(claimingStore(skip));
      const calls = Array.from({ length: 10 }, () => call());
      const results = await Promise.all(calls.map((one) => store.deductBalance(one)));
      expect(results.filter((result) => result.status === 'deducted')).toEqual([deducted(90)]);
      expect(results.filter((result) => result.status === 'repeated')).toEqual([repeated(90)]);
      expect(results.filter((result) => result.status === 'busy')).toHaveLength(8);
      const claimer = calls[results.findIndex((result) => result.status === 'repeated')] as Deduction;
      await confirmUsingTheRepeat(store, claimer, call());
    });

    it('confirms nothing for an id it does not keep, or a claim it never made', async ({ skip }) => {
      const { store, clientId, call } = await keptDeduction(claimingStore(skip));
      await store.confirmRepeat({ clientId, requestId: newRequestId(), claimId: randomUUID() });
      await store.confirmRepeat({ ...confirmationOf(call()), claimId: randomUUID() });
      expect(await store.deductBalance(call())).toEqual(repeated(90));
    });

    it('answers another fingerprint conflict whatever the claim, and a refund leaves a claimed id kept (CR-6.9)', async ({ skip }) => {
      const { store, clientId, call } = await keptDeduction(claimingStore(skip));
      const claimed = call();
      expect(await store.deductBalance(claimed)).toEqual(repeated(90));
      const other = call();
      expect(await store.deductBalance({ ...other, amount: 20, request: { ...(other.request as DeductionRequest), fingerprint: 'GET /y usd 20' } })).toEqual(CONFLICT);
      const requestId = claimed.request?.id ?? '';
      expect(await store.refundDeduction({ clientId, currency: 'usd', amount: 10, requestId, refundId: newRefundId() })).toEqual(superseded(90));
      expect(await store.deductBalance(call())).toEqual(BUSY);
      expect(await balanceOf(store, clientId)).toBe(90);
    });
  });
}
