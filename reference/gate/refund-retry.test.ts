// Unit tests of the settlement's refund retries: a refund whose call failed or timed out is tried again under one refund id, and applied once (CR-15.3, CR-4.7).
import { describe, expect, it, vi } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import type { DeductionRefund } from '../stores/store.ts';
import { ScriptedStore, type StoreFault } from '../testing/scripted-store.ts';
import type { ServeDecision } from './decision.ts';
import { createGate } from './gate.ts';
import { REFUND_RETRY_DELAYS_MS, RefundFailedError } from './handler-refund.ts';
import { untouchableProcessor } from '../testing/untouchable-processor.ts';

const CLIENT = 'c'.repeat(64);
const processor = untouchableProcessor();
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
  await store.inner.addBalance(CLIENT, 'usd', 1_000);
  const reported: { error: unknown; stage: string }[] = [];
  const refunded: unknown[] = [];
  const gate = createGate({
    stripePublishableKey: 'pk_test_x',
    serverSecret: 'x'.repeat(32),
    store,
    processor,
    routes: { 'GET /a': { amount: 500 } },
    refundOnHandlerError: true,
    storeTimeoutMs: 50,
    onError: (error, stage) => void reported.push({ error, stage }),
    hooks: { onEvent: (event) => void (event.type === 'refund' && refunded.push(event)) },
  });
  const failed = async (): Promise<void> => {
    const paymentHeader = encodeBase64Json({ stripe402Version: 1, clientId: CLIENT, requestId: 'req-1' });
    const decision = await gate.handle({ method: 'GET', url: '/a', paymentHeader });
    if (decision.action !== 'serve') throw new Error(`expected a serve decision, got ${decision.action}`);
    await (decision as ServeDecision).settle({ status: 500 });
  };
  const balance = async () => (await store.inner.getClient(CLIENT))?.balances.usd;
  const refundCalls = () => store.calls.filter((call) => call === 'refundDeduction').length;
  return { store, reported, refunded, failed, balance, refundCalls };
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
});
