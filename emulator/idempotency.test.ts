// Idempotency keys through the official SDK: replays, conflicts, what is stored and what is not.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { rawCall, rejection, useTestEmulator } from './test-support.ts';

const t = useTestEmulator();

const params = (amount = 500, payment_method = 'pm_card_visa'): Stripe.PaymentIntentCreateParams => ({
  amount,
  currency: 'usd',
  payment_method,
  confirm: true,
  automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and parameters', async () => {
    const first = await t.stripe.paymentIntents.create(params(), { idempotencyKey: 'key-1' });
    const second = await t.stripe.paymentIntents.create(params(), { idempotencyKey: 'key-1' });
    expect(second).toEqual(first);
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(second.lastResponse.headers['original-request']).toBe(first.lastResponse.requestId);
    expect(second.lastResponse.requestId).not.toBe(first.lastResponse.requestId);
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(1);
    const journal = await t.control.journal({ path: '/v1/payment_intents', method: 'POST' });
    expect(journal.map((e) => [e.idempotencyKey, e.replayed, e.status])).toEqual([
      ['key-1', false, 200],
      ['key-1', true, 200],
    ]);
    expect(journal[1]?.response).toEqual(journal[0]?.response);
  });

  it('answers an idempotency_error when the key is reused with other parameters', async () => {
    await t.stripe.paymentIntents.create(params(500), { idempotencyKey: 'key-2' });
    const error = await rejection(t.stripe.paymentIntents.create(params(600), { idempotencyKey: 'key-2' }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(error).toMatchObject({ statusCode: 400, rawType: 'idempotency_error', message: expect.stringMatching(/^Keys for idempotent requests can only be used with the same parameters/) });
    const otherEndpoint = await rejection(t.stripe.customers.create({}, { idempotencyKey: 'key-2' }));
    expect(otherEndpoint).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it('stores card declines, which executed, and replays them', async () => {
    const first = await rejection(t.stripe.paymentIntents.create(params(500, 'pm_card_chargeDeclined'), { idempotencyKey: 'key-3' }));
    const second = await rejection(t.stripe.paymentIntents.create(params(500, 'pm_card_chargeDeclined'), { idempotencyKey: 'key-3' }));
    expect(second).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect((second.payment_intent as Stripe.PaymentIntent).id).toBe((first.payment_intent as Stripe.PaymentIntent).id);
    expect(second.headers?.['idempotent-replayed']).toBe('true');
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(1);
  });

  it('does not store validation errors, so the key stays usable', async () => {
    await rejection(t.stripe.paymentIntents.create(params(10), { idempotencyKey: 'key-4' }));
    const intent = await t.stripe.paymentIntents.create(params(500), { idempotencyKey: 'key-4' });
    expect(intent.status).toBe('succeeded');
  });

  it('ignores keys on GET and keeps keys of different requests apart', async () => {
    const get = await rawCall(t.emulator, 'GET', '/v1/payment_methods/pm_card_visa', '', { authorization: 'Bearer sk_test_x', 'idempotency-key': 'g' });
    expect(get.status).toBe(200);
    const [a, b] = await Promise.all([
      t.stripe.paymentIntents.create(params(), { idempotencyKey: 'a' }),
      t.stripe.paymentIntents.create(params(), { idempotencyKey: 'b' }),
    ]);
    expect(a.id).not.toBe(b.id);
    const journal = await t.control.journal();
    expect(journal.find((e) => e.method === 'GET')?.idempotencyKey).toBeUndefined();
  });

  it('keys every SDK POST automatically, without replaying distinct calls', async () => {
    const a = await t.stripe.customers.create({});
    const b = await t.stripe.customers.create({});
    expect(a.id).not.toBe(b.id);
    const keys = (await t.control.journal({ path: '/v1/customers' })).map((e) => e.idempotencyKey);
    expect(keys).toEqual([expect.stringMatching(/^stripe-node-retry-/), expect.stringMatching(/^stripe-node-retry-/)]);
  });
});
