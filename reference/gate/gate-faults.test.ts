// Integration tests of outages: store and processor failures, over real sockets against the Stripe emulator.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FlakyStore } from 'credit402-tooling/testing/flaky-store';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';

const WEATHER = 'GET /api/weather';

describe('gate under store and processor failures', () => {
  const store = new FlakyStore();
  const charges = async () => stack.control.journal({ method: 'POST', path: '/v1/payment_intents' });

  const stack = useReferenceStack({ stripeTimeoutMs: 500 }, { store });
  beforeEach(async () => {
    await stack.control.clearJournal();
    await stack.control.clearFaults();
  });

  it('fails closed with 503 when the store is down on the credits path, logging neither header nor clientId (CR-6.6, CR-8.2, CR-8.9, CR-11.6, CR-13.20, CR-10.7)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    store.failNext('deductBalance');
    const clientId = 'a'.repeat(64);
    const response = await paidFetch(stack.server.url, WEATHER, { clientId });
    const logText = JSON.stringify(logged.mock.calls.map((call) => call.map(String)));
    logged.mockRestore();
    expect(logText).toContain('deductBalance');
    expect(logText).not.toContain(clientId);
    expect(logText).not.toContain(Buffer.from(JSON.stringify({ clientId })).toString('base64'));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.body).toMatchObject({ success: false, creditsRemaining: 0, clientId: '', errorCode: 'service_unavailable' });
    expect(await stack.control.journal()).toEqual([]);
  });

  it('fails closed before any charge when the store is down on the payment path (CR-7.21)', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    store.failNext('deductBalance');
    const response = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    expect(response.status).toBe(503);
    expect(await charges()).toEqual([]);
  });

  it.each(['error500', 'timeout', 'reset'] as const)('answers payment_failed on a processor %s and credits nothing (CR-7.20, CR-13.35, CR-13.37)', async (kind) => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    // The SDK retries a dropped connection once even with maxNetworkRetries 0, so two faults make one failure.
    await stack.control.injectFault({ method: 'POST', path: '/v1/payment_intents', kind, count: 2, delayMs: 2_000, match: { payment_method: card } });
    const failed = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    expect(failed.status).toBe(402);
    expect(failed.body).toMatchObject({ success: false, creditsRemaining: 0, clientId: '', errorCode: 'payment_failed' });
    // Neither the processor's answer (CR-13.37) nor the SDK's error without one (CR-13.35) reaches the client.
    expect((failed.body as { error: string }).error).toBe('Payment processing failed');
    await stack.control.clearFaults();
    const retried = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    expect(retried.paymentResponse).toMatchObject({ success: true, creditsRemaining: 49_500 });
  });

  it('credits a charge exactly once when the store fails after the charge and the client retries (CR-7.22, CR-7.23, CR-7.16)', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    store.failNext('creditTopUp');
    const pending = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    expect(pending.status).toBe(503);
    expect(pending.body).toMatchObject({ errorCode: 'service_unavailable' });
    const retried = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    const paid = retried.paymentResponse as { chargeId: string; creditsRemaining: number };
    expect(paid.creditsRemaining).toBe(49_500);
    const attempts = await charges();
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.replayed).toBe(true);
    expect(attempts[1]?.idempotencyKey).toBe(attempts[0]?.idempotencyKey);
    expect((attempts[0]!.response as { id: string }).id).toBe(paid.chargeId);
  });

  it('writes the deduction record with the deduction, so the log is exact (CR-11.8, CR-11.9, CR-13.30)', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    const response = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    const { clientId, chargeId } = response.paymentResponse as { clientId: string; chargeId: string };
    const log = (await store.inner.listTransactions?.(clientId)) ?? [];
    expect(log.map(({ type, amount, paymentIntentId, resource }) => ({ type, amount, paymentIntentId, resource }))).toEqual([
      { type: 'topup', amount: 50_000, paymentIntentId: chargeId, resource: undefined },
      { type: 'deduction', amount: 500, paymentIntentId: undefined, resource: WEATHER },
    ]);
  });
});
