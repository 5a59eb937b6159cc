// The reference server's scheduled reconciliation (no webhook endpoint) and the new-payment rate limit over real sockets.
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { StripeProcessor } from '../processor/stripe-processor.ts';
import { topUpMetadata } from '../processor/top-up-metadata.ts';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';
import { loadServerConfig, reconcileInterval } from '../compose/engine-config.ts';

describe('reconcileEveryMs', () => {
  it('defaults to 5 minutes with Stripe or the embedded emulator, off with an API URL, and is validated', () => {
    expect(reconcileInterval({ stripeApi: 'embedded' })).toBe(300_000);
    expect(reconcileInterval({ stripeApi: 'stripe' })).toBe(300_000);
    expect(reconcileInterval({ stripeApi: 'http://127.0.0.1:12111' })).toBe(0);
    expect(reconcileInterval({ stripeApi: 'stripe', reconcileEveryMs: 0 })).toBe(0);
    expect(loadServerConfig({ overrides: { reconcileEveryMs: 1000 } }).reconcileEveryMs).toBe(1000);
    for (const bad of [-1, 1.5, '1000', 2 ** 31]) {
      expect(() => loadServerConfig({ overrides: { reconcileEveryMs: bad as number } })).toThrow(Credit402ConfigError);
    }
  });
});

describe('scheduled reconciliation without a webhook endpoint', () => {
  const stack = useReferenceStack({ reconcileEveryMs: 100 });

  it('credits a charge made behind the server on the next scheduled run', async () => {
    expect(stack.server.webhookUrl).toBeUndefined();
    expect(stack.server.reconciler).toBeDefined();
    const clientId = 'c'.repeat(64);
    const processor = new StripeProcessor({ secretKey: 'sk_test_credit402reference', api: { host: '127.0.0.1', port: stack.emulator.port, protocol: 'http' } });
    const paymentMethodId = await createCardPaymentMethod(stack.emulator.url);
    const customerId = await processor.findOrCreateCustomer(clientId, paymentMethodId);
    const charge = await processor.charge({
      amountCents: 500, currency: 'usd', paymentMethodId, customerId, description: 'credit402 top-up lost on the way',
      idempotencyKey: `scheduled-${paymentMethodId}`, metadata: topUpMetadata(clientId, 50_000),
    });
    expect(charge.succeeded).toBe(true);
    await expect.poll(() => stack.server.store.getClient(clientId), { timeout: 5_000, interval: 50 }).toMatchObject({ balances: { usd: 50_000 }, topUps: 1 });
    const spend = await paidFetch(stack.server.url, 'GET /api/weather', { clientId });
    expect(spend.paymentResponse).toEqual({ success: true, creditsRemaining: 49_500, clientId });
  });
});

describe.each(['fastify', 'express', 'hono', 'http'] as const)('new-payment rate limit on %s', (framework) => {
  const stack = useReferenceStack({ framework, newPaymentRateLimit: { perAddress: { max: 1, windowMs: 60_000 } } });

  it('answers the second new payment from the same address 429 with Retry-After, without calling Stripe', async () => {
    const first = await paidFetch(stack.server.url, 'GET /api/weather', { paymentMethodId: 'pm_card_visa' });
    expect(first.status).toBe(200);
    await stack.control.clearJournal();
    const card = 'pm_card_mastercard';
    const response = await fetch(`${stack.server.url}/api/weather`, {
      headers: { payment: Buffer.from(JSON.stringify({ stripe402Version: 1, paymentMethodId: card })).toString('base64') },
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(await response.json()).toMatchObject({ success: false, errorCode: 'rate_limited' });
    expect(await stack.control.journal()).toEqual([]);
    const paid = first.paymentResponse as { clientId: string };
    expect((await paidFetch(stack.server.url, 'GET /api/weather', { clientId: paid.clientId })).status).toBe(200);
  });
});
