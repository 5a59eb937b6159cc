// PaymentMethods through the official SDK: card checks, fingerprints, documented test ids, keys.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { NEXT_YEAR, cardParams, rawCall, rejection, sdkFor, useTestEmulator } from './test-support.ts';

const t = useTestEmulator();

describe('POST /v1/payment_methods', () => {
  it('creates a card payment method with brand, last4, expiry and fingerprint', async () => {
    const method = await t.stripe.paymentMethods.create({
      ...cardParams('5555555555554444'),
      billing_details: { name: 'Jenny Rosen', address: { country: 'NO' } },
      metadata: { order: '42' },
    });
    expect(method).toMatchObject({
      id: expect.stringMatching(/^pm_[A-Za-z0-9]{24}$/),
      object: 'payment_method',
      type: 'card',
      livemode: false,
      customer: null,
      metadata: { order: '42' },
      billing_details: { name: 'Jenny Rosen', email: null, address: { country: 'NO', city: null } },
      card: { brand: 'mastercard', last4: '4444', exp_month: 12, exp_year: NEXT_YEAR, funding: 'credit', country: 'US' },
    });
    expect(method.card?.fingerprint).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(method.created).toBeCloseTo(Date.now() / 1000, -1);
    expect(await t.stripe.paymentMethods.retrieve(method.id)).toEqual(method);
  });

  it('gives two payment methods of one number the same fingerprint and other numbers another', async () => {
    const [a, b, c] = await Promise.all(['4242424242424242', '4242424242424242', '4000056655665556'].map((n) => t.stripe.paymentMethods.create(cardParams(n))));
    expect(a?.id).not.toBe(b?.id);
    expect(a?.card?.fingerprint).toBe(b?.card?.fingerprint);
    expect(c?.card?.fingerprint).not.toBe(a?.card?.fingerprint);
    const visa = await t.stripe.paymentMethods.retrieve('pm_card_visa');
    expect(visa.card?.fingerprint).toBe(a?.card?.fingerprint);
  });

  it.each([
    ['a number failing the Luhn check', cardParams('4242424242424241'), 'incorrect_number', 'card[number]', 'Your card number is incorrect.'],
    ['a number that is not one', cardParams('4242'), 'invalid_number', 'card[number]', 'The card number is not a valid credit card number.'],
    ['an expiry year in the past', cardParams('4242424242424242', { exp_year: 2001 }), 'invalid_expiry_year', 'card[exp_year]', "Your card's expiration year is invalid."],
    ['a month 13', cardParams('4242424242424242', { exp_month: 13 }), 'invalid_expiry_month', 'card[exp_month]', "Your card's expiration month is invalid."],
    ['a bad CVC', cardParams('4242424242424242', { cvc: '12' }), 'invalid_cvc', 'card[cvc]', "Your card's security code is invalid."],
  ])('rejects %s with a card error', async (_name, params, code, param, message) => {
    const error = await rejection(t.stripe.paymentMethods.create(params));
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({ statusCode: 402, code, param, message });
  });

  it('rejects a past month of the current year', async () => {
    const now = new Date();
    if (now.getUTCMonth() === 0) return;
    const error = await rejection(t.stripe.paymentMethods.create(cardParams('4242424242424242', { exp_month: now.getUTCMonth(), exp_year: now.getUTCFullYear() })));
    expect(error).toMatchObject({ code: 'invalid_expiry_month' });
  });

  it('requires type and card, and rejects other types and unknown card fields', async () => {
    expect(await rawCall(t.emulator, 'POST', '/v1/payment_methods', 'card[number]=4242424242424242')).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', param: 'type', message: 'Missing required param: type.' } },
    });
    expect((await rawCall(t.emulator, 'POST', '/v1/payment_methods', 'type=card')).body.error).toMatchObject({ param: 'card' });
    expect((await rawCall(t.emulator, 'POST', '/v1/payment_methods', 'type=sepa_debit')).body.error).toMatchObject({ param: 'type' });
    const nested = await rawCall(t.emulator, 'POST', '/v1/payment_methods', 'type=card&card[number]=4242424242424242&card[exp_month]=1&card[exp_year]=2099&card[colour]=red');
    expect(nested.body.error).toMatchObject({ param: 'card[colour]', message: 'Received unknown parameter: card[colour]' });
  });
});

describe('GET /v1/payment_methods/:id', () => {
  /** The documented test ids of cards, and the brand and last4 of the card each stands for. */
  const DOCUMENTED_CARDS = {
    pm_card_visa: { brand: 'visa', last4: '4242' },
    pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
    pm_card_amex: { brand: 'amex', last4: '0005' },
    pm_card_chargeDeclined: { brand: 'visa', last4: '0002' },
    pm_card_chargeDeclinedInsufficientFunds: { brand: 'visa', last4: '9995' },
    pm_card_chargeDeclinedExpiredCard: { brand: 'visa', last4: '0069' },
    pm_card_chargeDeclinedProcessingError: { brand: 'visa', last4: '0119' },
    pm_card_authenticationRequired: { brand: 'visa', last4: '3155' },
  };
  it.each(Object.entries(DOCUMENTED_CARDS))('serves the documented test id %s', async (id, card) => {
    const method = await t.stripe.paymentMethods.retrieve(id);
    expect(method).toMatchObject({ id, type: 'card', card: { ...card, fingerprint: expect.any(String) } });
  });

  it('serves pm_usBankAccount, a payment method without a card', async () => {
    const method = await t.stripe.paymentMethods.retrieve('pm_usBankAccount');
    expect(method.type).toBe('us_bank_account');
    expect(method.card).toBeUndefined();
    expect(method.us_bank_account).toMatchObject({ bank_name: 'STRIPE TEST BANK', last4: '6789' });
  });

  it('answers 404 resource_missing for an unknown id', async () => {
    const error = await rejection(t.stripe.paymentMethods.retrieve('pm_x'));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'id', message: "No such PaymentMethod: 'pm_x'" });
  });
});

describe('API keys', () => {
  it('lets a publishable key create payment methods but nothing else', async () => {
    const browser = sdkFor(t.emulator, 'pk_test_browser');
    const method = await browser.paymentMethods.create(cardParams('4242424242424242'));
    expect(method.card?.last4).toBe('4242');
    for (const call of [browser.paymentMethods.retrieve(method.id), browser.customers.create({}), browser.paymentIntents.list()]) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
      expect(error.message).toMatch(/cannot be made with a publishable API key/);
    }
  });

  it('accepts live and restricted secret keys and Basic auth', async () => {
    for (const key of ['sk_live_abc', 'rk_test_abc']) expect((await sdkFor(t.emulator, key).paymentMethods.retrieve('pm_card_visa')).id).toBe('pm_card_visa');
    const basic = `Basic ${Buffer.from('sk_test_x:').toString('base64')}`;
    expect((await rawCall(t.emulator, 'GET', '/v1/payment_methods/pm_card_visa', '', { authorization: basic })).status).toBe(200);
  });

  it('answers 401 to a bad or missing key, masking the key', async () => {
    const error = await rejection(sdkFor(t.emulator, 'sk_nope_1234567890').paymentMethods.retrieve('pm_card_visa'));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(error.message).toBe('Invalid API Key provided: **************7890');
    const missing = await rawCall(t.emulator, 'GET', '/v1/payment_methods/pm_card_visa', '', {});
    expect(missing).toMatchObject({ status: 401, body: { error: { type: 'invalid_request_error', message: expect.stringMatching(/^You did not provide an API key/) } } });
  });

  it('answers an unknown URL with 404 and a Request-Id', async () => {
    const response = await rawCall(t.emulator, 'GET', '/v1/widgets');
    expect(response.status).toBe(404);
    expect(response.body.error?.message).toMatch(/^Unrecognized request URL \(GET: \/v1\/widgets\)/);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
  });
});
