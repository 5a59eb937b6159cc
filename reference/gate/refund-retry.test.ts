// Unit tests of the settlement's refund retries: a refund whose call failed or timed out is tried again under one refund id, and applied once (CR-15.3, CR-4.7).
import { describe, expect, it, vi } from 'vitest';
import type { DeductionRefund, DeductionRefundResult } from '../stores/store.ts';
import { ScriptedStore, type StoreFault } from 'credit402-tooling/testing/scripted-store';
import { PAYING_CLIENT as CLIENT, servingGate } from 'credit402-tooling/testing/serving-gate';
import type { ServeDecision } from './decision.ts';
import { REFUND_RETRY_DELAYS_MS, RefundFailedError, RefundSupersededError } from './handler-refund.ts';

/** Long enough for every retry of a refund. */
const ALL_RETRIES_MS = REFUND_RETRY_DELAYS_MS.reduce((sum, pause) => sum + pause, 0) + 1_500;

/** A {@link ScriptedStore} that also keeps every refund it was asked for. */
class RefundJournal extends ScriptedStore {
  readonly refunds: DeductionRefund[] = [];
  override refundDeduction(refund: DeductionRefund) {
    this.refunds.push({ ...refund });
    return super.refundDeduction(refund);
  }
}

/** A gate (store deadline 50 ms) over a store holding 1000 units for CLIENT with `faults`; `failed()` spends 500 and settles with a 500. */
async function setUp(faults: StoreFault[]) {
  const store = new RefundJournal(faults);
  const reported: { error: unknown; stage: string }[] = [];
  const refunded: unknown[] = [];
  const { serve, balance } = await servingGate(store, {
    refundOnHandlerError: true,
    storeTimeoutMs: 50,
    onError: (error, stage) => void reported.push({ error, stage }),
    hooks: { onEvent: (event) => void (event.type === 'refund' && refunded.push(event)) },
  });
  /** A paid request with request id `req-1` (its first attempt, or the client's retry), settled with `status`. */
  const served = async (status: number): Promise<ServeDecision> => {
    const decision = await serve('req-1');
    await decision.settle({ status });
    return decision;
  };
  const failed = async (): Promise<void> => void (await served(500));
  const refundCalls = () => store.calls.filter((call) => call === 'refundDeduction').length;
  return { store, reported, refunded, served, failed, balance, refundCalls };
}

describe('refund retries (CR-15.3, CR-4.7)', () => {
  it('a first call that times out is tried again: the second applies, and the balance is refunded once', async () => {
    const { store, reported, refunded, failed, balance, refundCalls } = await setUp([{ method: 'refundDeduction', nth: 1, script: 'hang' }]);
    await failed();
    expect(await balance()).toBe(500); // settle resolved after the first attempt; the retry follows in the background
    await vi.waitFor(() => expect(refundCalls()).toBe(2), { timeout: ALL_RETRIES_MS });
    await vi.waitFor(async () => expect(await balance()).toBe(1_000));
    expect(reported).toEqual([{ error: expect.objectContaining({ code: 'ERR_STORE_TIMEOUT' }), stage: 'refundOnHandlerError' }]);
    expect(refunded).toHaveLength(1);
    const [first, second] = store.refunds;
    expect(first?.refundId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toEqual(first);
    expect(await store.inner.listTransactions?.(CLIENT)).toEqual([]);
  });

  it('a first call applied but answered with an error (a lost reply) is tried again, and the retry gives nothing twice', async () => {
    const { reported, failed, balance, refundCalls } = await setUp([{ method: 'refundDeduction', nth: 1, script: 'lost' }]);
    await failed();
    expect(await balance()).toBe(1_000);
    await vi.waitFor(() => expect(refundCalls()).toBe(2), { timeout: ALL_RETRIES_MS });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await balance()).toBe(1_000);
    expect(reported.map(({ stage }) => stage)).toEqual(['refundOnHandlerError']);
  });

  it('a first call that reaches the store after its retry (a store without deadline checks) changes nothing', async () => {
    const lateMs = REFUND_RETRY_DELAYS_MS[0]! + 200;
    const { failed, balance, refundCalls } = await setUp([{ method: 'refundDeduction', nth: 1, script: { lateMs } }]);
    await failed();
    await vi.waitFor(async () => expect(await balance()).toBe(1_000), { timeout: ALL_RETRIES_MS });
    expect(refundCalls()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, lateMs));
    expect(await balance()).toBe(1_000);
  });

  it('gives up after the last attempt, reported as ERR_REFUND_FAILED with the refund to make by hand', async () => {
    const { store, reported, refunded, failed, balance, refundCalls } = await setUp([{ method: 'refundDeduction', script: 'reject' }]);
    await failed();
    const attempts = REFUND_RETRY_DELAYS_MS.length + 1;
    await vi.waitFor(() => expect(reported).toHaveLength(attempts), { timeout: ALL_RETRIES_MS });
    expect(refundCalls()).toBe(attempts);
    expect(reported.every(({ stage }) => stage === 'refundOnHandlerError')).toBe(true);
    const last = reported.at(-1)?.error;
    expect(last).toBeInstanceOf(RefundFailedError);
    const refundId = store.refunds[0]?.refundId;
    expect(last).toMatchObject({ code: 'ERR_REFUND_FAILED', attempts, route: 'GET /a', client: CLIENT.slice(0, 8), currency: 'usd', units: 500, refundId });
    expect((last as Error).message).not.toContain(CLIENT);
    expect((last as Error).cause).toBeInstanceOf(Error);
    expect(reported.slice(0, -1).map(({ error }) => error)).not.toContainEqual(expect.any(RefundFailedError));
    expect(new Set(store.refunds.map((refund) => refund.refundId)).size).toBe(1);
    expect(refunded).toEqual([]);
    expect(await balance()).toBe(500);
  });

  it('CR-6.9 a retry that lands after the client\'s retry was served as the repeat gives nothing back: one deduction, no refund event, no more attempts', async () => {
    const { store, reported, refunded, served, failed, balance, refundCalls } = await setUp([{ method: 'refundDeduction', nth: 1, script: 'reject' }]);
    await failed();
    // The client retries the request id before the refund's retry (after REFUND_RETRY_DELAYS_MS[0]) and is served free as its repeat.
    const repeat = await served(200);
    expect(repeat.payment).toMatchObject({ success: true, creditsRemaining: 500 });
    expect(refundCalls()).toBe(1);
    await vi.waitFor(() => expect(refundCalls()).toBe(2), { timeout: ALL_RETRIES_MS });
    await vi.waitFor(() => expect(reported).toHaveLength(2));
    expect(reported[1]).toEqual({ error: expect.any(RefundSupersededError), stage: 'refundOnHandlerError' });
    expect(reported[1]?.error).toMatchObject({ code: 'ERR_REFUND_SUPERSEDED', route: 'GET /a', client: CLIENT.slice(0, 8), units: 500, refundId: store.refunds[0]?.refundId });
    // Past every retry: the superseded refund was the last attempt, and the deduction the repeat was served for stands.
    await new Promise((resolve) => setTimeout(resolve, REFUND_RETRY_DELAYS_MS.at(-1)! + 300));
    expect(refundCalls()).toBe(2);
    expect(refunded).toEqual([]);
    expect(await balance()).toBe(500);
    expect(await store.inner.listTransactions?.(CLIENT)).toHaveLength(1);
  });

  it('a store answering outside the contract (a bare balance, as before refunds could be superseded) is reported once, with no refund event and no retry', async () => {
    const { store, reported, refunded, failed, refundCalls } = await setUp([]);
    store.inner.refundDeduction = async () => 1_000 as unknown as DeductionRefundResult;
    await failed();
    expect(reported).toEqual([{ error: expect.any(TypeError), stage: 'refundOnHandlerError' }]);
    expect(reported[0]?.error).toMatchObject({ message: expect.stringContaining('refundDeduction resolved 1000, which is not a DeductionRefundResult') });
    await new Promise((resolve) => setTimeout(resolve, REFUND_RETRY_DELAYS_MS[0]! + 100));
    expect(refundCalls()).toBe(1);
    expect(refunded).toEqual([]);
  });
});
