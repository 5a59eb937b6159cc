// A first payment whose PaymentIntent creation got no answer, retried by the client: one charge, credited once.
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';

const WEATHER = 'GET /api/weather';

describe('retry after a processor failure without an answer', () => {
  const store = new MemoryStore();

  const stack = useReferenceStack({ stripeTimeoutMs: 500 }, { store });

  it.each(['reset', 'timeout'] as const)('CR-14.8 a retry after a PaymentIntent creation lost to a %s sends the same idempotency key and is charged once', async (kind) => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    // The SDK retries a reset connection once even with maxNetworkRetries 0 (two faults make one failure);
    // a request held past the SDK's 500 ms timeout is not retried.
    const count = kind === 'reset' ? 2 : 1;
    await stack.control.injectFault({ method: 'POST', path: '/v1/payment_intents', kind, count, delayMs: 1_000, match: { payment_method: card } });
    expect((await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card })).body).toMatchObject({ errorCode: 'payment_failed' });
    const retried = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card });
    const paid = retried.paymentResponse as { clientId: string };
    expect(paid).toMatchObject({ success: true, creditsRemaining: 49_500 });
    const attempts = (await stack.control.journal({ method: 'POST', path: '/v1/payment_intents' })).filter((e) => e.params.payment_method === card);
    expect(attempts.length).toBeGreaterThan(1);
    expect(new Set(attempts.map((a) => a.idempotencyKey)).size).toBe(1);
    expect(attempts.filter((a) => a.status === 200)).toHaveLength(1);
    expect(await store.getClient(paid.clientId)).toMatchObject({ balances: { usd: 49_500 }, topUps: 1 });
  });
});
