// The reference server's default new-payment limit over real sockets: unknown payment methods from one address cost a bounded number of Stripe calls.
import { describe, expect, it } from 'vitest';
import { DEFAULT_NEW_PAYMENT_RATE_LIMIT } from '../gate/index.ts';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';

describe('the default newPaymentRateLimit on the reference server', () => {
  const stack = useReferenceStack();
  const max = DEFAULT_NEW_PAYMENT_RATE_LIMIT.perAddress?.max ?? 0;

  it(`CR-9.6 answers 429 to the ${max + 1}th unknown PaymentMethod from one address, which costs no Stripe call (was: one call each)`, async () => {
    const lookups = async () => (await stack.control.journal({ method: 'GET', path: '/v1/payment_methods' })).length;
    const before = await lookups();
    for (let i = 0; i < max; i++) {
      const answer = await paidFetch(stack.server.url, 'GET /api/weather', { paymentMethodId: `pm_unknown${i}x${Date.now()}` });
      expect(answer.body, `attempt ${i + 1}`).toMatchObject({ errorCode: 'payment_failed' });
    }
    const refused = await paidFetch(stack.server.url, 'GET /api/weather', { paymentMethodId: 'pm_unknownover' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ errorCode: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await lookups()) - before).toBe(max);
  }, 60_000);
});
