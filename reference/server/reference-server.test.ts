// Integration tests: the reference server on both adapters, over real sockets, against the Stripe emulator.
import { beforeEach, describe, expect, it } from 'vitest';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';

const WEATHER = 'GET /api/weather';
const HEX64 = /^[0-9a-f]{64}$/;
const errorBody = (errorCode: string) => ({ success: false, creditsRemaining: 0, clientId: '', errorCode, error: expect.any(String) });

describe.each(['fastify', 'express', 'hono'] as const)('reference server on %s', (framework) => {
  const charges = async () => stack.control.journal({ method: 'POST', path: '/v1/payment_intents' });
  const apiCalls = async () => stack.control.journal();

  const stack = useReferenceStack({ framework });
  beforeEach(async () => {
    await stack.control.clearJournal();
  });

  it('answers an unpaid gated request with the challenge in header and body', async () => {
    const response = await paidFetch(stack.server.url, WEATHER);
    expect(response.status).toBe(402);
    expect(response.paymentRequired).toEqual(response.body);
    expect(response.body).toEqual({
      stripe402Version: 1,
      resource: { url: '/api/weather', description: 'Weather lookup' },
      accepts: [{ scheme: 'stripe', currency: 'usd', amount: 500, minTopUp: 50_000, publishableKey: 'pk_test_credit402reference', description: 'Weather lookup' }],
    });
    expect((await paidFetch(stack.server.url, 'GET /api/weather?city=Oslo')).status).toBe(402);
  });

  it('gates HEAD like GET, since the framework would run the GET handler for it', async () => {
    const response = await fetch(`${stack.server.url}/api/weather`, { method: 'HEAD' });
    expect(response.status).toBe(402);
    expect(response.headers.get('payment-required')).toBeTruthy();
  });

  it('leaves free routes and other methods on a gated path untouched', async () => {
    for (const route of ['GET /free', 'POST /api/weather']) {
      const response = await paidFetch(stack.server.url, route);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ route, gated: false });
      expect(response.paymentResponse).toBeUndefined();
    }
  });

  it('pays with pm_card_visa, authenticating to the processor with the secret key, then spends with the clientId and is never charged twice (CR-10.6)', async () => {
    const first = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: 'pm_card_visa' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ route: WEATHER, gated: true });
    const paid = first.paymentResponse as { clientId: string; chargeId: string };
    expect(paid).toEqual({ success: true, creditsRemaining: 49_500, clientId: expect.stringMatching(HEX64), chargeId: expect.stringMatching(/^pi_/) });
    const [charge] = await charges();
    expect(charge?.params).toMatchObject({
      amount: '500',
      currency: 'usd',
      payment_method: 'pm_card_visa',
      description: 'credit402 top-up for Weather lookup',
      confirm: 'true',
      automatic_payment_methods: { enabled: 'true', allow_redirects: 'never' },
    });
    expect(charge?.idempotencyKey).toMatch(/^credit402-topup-/);

    const spend = await paidFetch(stack.server.url, WEATHER, { clientId: paid.clientId });
    expect(spend.status).toBe(200);
    expect(spend.paymentResponse).toEqual({ success: true, creditsRemaining: 49_000, clientId: paid.clientId });

    const again = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: 'pm_card_visa' });
    expect(again.paymentResponse).toEqual({ success: true, creditsRemaining: 48_500, clientId: paid.clientId });
    expect(await charges()).toHaveLength(1);
  });

  it('charges the top-up in cents rounded up, in the route currency, with the path when there is no description', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    const response = await paidFetch(stack.server.url, 'GET /api/nodesc', { paymentMethodId: card, topUpAmount: 50_001 });
    expect(response.paymentResponse).toMatchObject({ success: true, creditsRemaining: 50_000 });
    const translate = await paidFetch(stack.server.url, 'POST /api/translate', { paymentMethodId: await createCardPaymentMethod(stack.emulator.url) });
    expect(translate.paymentResponse).toMatchObject({ success: true, creditsRemaining: 97_500 });
    const [nodesc, eur] = await charges();
    expect(nodesc?.params).toMatchObject({ amount: '501', currency: 'usd', description: 'credit402 top-up for /api/nodesc' });
    expect(eur?.params).toMatchObject({ amount: '1000', currency: 'eur', description: 'credit402 top-up for Translation' });
  });

  it('answers an unknown or malformed clientId with the insufficient-credits challenge', async () => {
    for (const clientId of ['0'.repeat(64), 'not-a-client']) {
      const response = await paidFetch(stack.server.url, WEATHER, { clientId });
      expect(response.status).toBe(402);
      expect(response.body).toMatchObject({ error: 'insufficient_credits', message: expect.any(String), accepts: [{ amount: 500 }] });
      expect(response.paymentRequired).toEqual(response.body);
    }
  });

  it('rejects a top-up below the minimum before calling the processor', async () => {
    const card = await createCardPaymentMethod(stack.emulator.url);
    await stack.control.clearJournal();
    const response = await paidFetch(stack.server.url, WEATHER, { paymentMethodId: card, topUpAmount: 49_999 });
    expect(response.status).toBe(402);
    expect(response.body).toEqual(errorBody('top_up_below_minimum'));
    expect((response.body as { error: string }).error).toMatch(/49999[\s\S]*50000/);
    expect(await apiCalls()).toEqual([]);
  });

  it.each([
    ['pm_card_chargeDeclined', 'card_declined', 'Your card was declined.'],
    ['pm_card_chargeDeclinedInsufficientFunds', 'card_declined', 'Your card has insufficient funds.'],
    ['pm_card_authenticationRequired', 'payment_failed', 'Payment processing failed'],
    ['pm_usBankAccount', 'payment_failed', undefined],
    ['pm_does_not_exist', 'payment_failed', undefined],
  ])('answers %s with %s and credits nothing', async (paymentMethodId, errorCode, message) => {
    const response = await paidFetch(stack.server.url, WEATHER, { paymentMethodId });
    expect(response.status).toBe(402);
    expect(response.body).toEqual(errorBody(errorCode));
    if (message) expect((response.body as { error: string }).error).toBe(message);
    expect(response.paymentResponse).toBeUndefined();
  });

  const badHeaders: Array<[string, unknown]> = [
    ['not base64', '***not base64***'],
    ['base64 of non-JSON', Buffer.from('hello').toString('base64')],
    ['null', Buffer.from('null').toString('base64')],
    ['an array', Buffer.from('[]').toString('base64')],
    ['a number', Buffer.from('42').toString('base64')],
    ['a numeric clientId', { clientId: 42 }],
    ['an object paymentMethodId', { paymentMethodId: { id: 'pm_card_visa' } }],
    ['a float topUpAmount', { paymentMethodId: 'pm_card_visa', topUpAmount: 50_000.5 }],
    ['a negative topUpAmount', { paymentMethodId: 'pm_card_visa', topUpAmount: -50_000 }],
    ['a huge topUpAmount', { paymentMethodId: 'pm_card_visa', topUpAmount: 1e20 }],
    ['a topUpAmount above the largest charge', { paymentMethodId: 'pm_card_visa', topUpAmount: 10_000_000_000 }],
    ['a wrong protocol version', { stripe402Version: 2, paymentMethodId: 'pm_card_visa' }],
  ];
  it.each(badHeaders)('answers %s with invalid_payment and charges nothing', async (_name, header) => {
    const response = await paidFetch(stack.server.url, WEATHER, header);
    expect(response.status).toBe(402);
    expect(response.body).toEqual(errorBody('invalid_payment'));
    expect(await apiCalls()).toEqual([]);
  });
});
