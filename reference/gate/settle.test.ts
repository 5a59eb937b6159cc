// Unit tests of a serve decision's settle: the engine's rule "5xx or threw, with refundOnHandlerError, gives the price back once".
import { describe, expect, it, vi } from 'vitest';
import { FlakyStore } from 'credit402-tooling/testing/flaky-store';
import { PAYING_CLIENT as CLIENT, servingGate } from 'credit402-tooling/testing/serving-gate';
import type { ServeOutcome } from './decision.ts';

/** A gate over a store holding 1000 units for CLIENT; `served()` spends 500 of them and resolves to the serve decision. */
async function setUp(refundOnHandlerError: boolean) {
  const store = new FlakyStore();
  const errors: string[] = [];
  const { serve: served, balance } = await servingGate(store, { refundOnHandlerError, onError: (_error, stage) => void errors.push(stage) });
  return { store, errors, served, balance };
}

describe('settle', () => {
  it.each<[ServeOutcome, number]>([
    [{ status: 200 }, 500],
    [{ status: 404 }, 500],
    [{ status: 499 }, 500],
    [{ status: 500 }, 1_000],
    [{ status: 503 }, 1_000],
    [{ threw: true }, 1_000],
  ])('with refundOnHandlerError, after %j leaves the balance at %i', async (outcome, expected) => {
    const { served, balance } = await setUp(true);
    await (await served()).settle(outcome);
    expect(await balance()).toBe(expected);
  });

  it('refunds at most once however often it is called, and only its first outcome counts', async () => {
    const { served, balance } = await setUp(true);
    const failed = await served();
    await Promise.all([failed.settle({ status: 500 }), failed.settle({ threw: true })]);
    await failed.settle({ status: 502 });
    expect(await balance()).toBe(1_000);
    const succeeded = await served();
    await succeeded.settle({ status: 200 });
    await succeeded.settle({ status: 500 });
    expect(await balance()).toBe(500);
  });

  it.each([true, false])('gives the price back once after a gateway upstream failure, refundOnHandlerError %s (CR-15.3)', async (refund) => {
    const { served, balance } = await setUp(refund);
    const failed = await served();
    await Promise.all([failed.settle({ status: 502, upstreamFailed: true }), failed.settle({ status: 504, upstreamFailed: true })]);
    await failed.settle({ status: 502, upstreamFailed: true });
    expect(await balance()).toBe(1_000);
  });

  it('keeps the deduction when the option is off (the default)', async () => {
    const { served, balance } = await setUp(false);
    await (await served()).settle({ threw: true });
    expect(await balance()).toBe(500);
  });

  it('gives nothing back for a served retry, which deducted nothing (CR-6.9)', async () => {
    const { served, balance } = await setUp(true);
    await (await served('req-1')).settle({ status: 200 });
    await (await served('req-1')).settle({ status: 500 });
    expect(await balance()).toBe(500);
  });

  it('forgets the requestId of a refunded deduction: the same id is deducted again, never served free (CR-15.3, CR-6.9)', async () => {
    const { store, served, balance } = await setUp(false);
    for (let attempt = 1; attempt <= 20; attempt++) {
      const failed = await served('req-upstream-down');
      expect(failed.payment.creditsRemaining).toBe(500);
      await failed.settle({ status: 502, upstreamFailed: true });
      expect(await balance()).toBe(1_000);
    }
    const retried = await served('req-upstream-down');
    expect(retried.payment.creditsRemaining).toBe(500);
    await retried.settle({ status: 200 });
    expect(await balance()).toBe(500);
    // The log is exact: one deduction, the one that stood.
    const log = (await store.inner.listTransactions?.(CLIENT)) ?? [];
    expect(log.map((record) => [record.type, record.amount])).toEqual([['deduction', 500]]);
  });

  it('with refundOnHandlerError, a failed handler gives back its deduction, record and requestId together', async () => {
    const { store, served, balance } = await setUp(true);
    await (await served('req-handler-failed')).settle({ status: 500 });
    expect(await balance()).toBe(1_000);
    expect(await store.inner.listTransactions?.(CLIENT)).toEqual([]);
    expect((await served('req-handler-failed')).payment.creditsRemaining).toBe(500);
  });

  it('never rejects: a store failure during the refund is reported to onError, and the refund is tried again', async () => {
    const { store, errors, served, balance } = await setUp(true);
    const decision = await served();
    store.failNext('refundDeduction');
    await expect(decision.settle({ status: 500 })).resolves.toBeUndefined();
    expect(errors).toEqual(['refundOnHandlerError']);
    expect(await balance()).toBe(500);
    await vi.waitFor(async () => expect(await balance()).toBe(1_000), { timeout: 2_000 }); // the retry (refund-retry.test.ts)
    expect(errors).toEqual(['refundOnHandlerError']);
  });
});
