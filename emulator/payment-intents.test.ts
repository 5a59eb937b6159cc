// PaymentIntents through the official SDK: test-card outcomes, validation, listing, expansion.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardParams, rawCall, rejection, startTestEmulator } from './test-support.ts';
import type { TestEmulator } from './test-support.ts';

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(() => t.emulator.close());

const NO_REDIRECTS = { enabled: true, allow_redirects: 'never' } as const;
const charge = (payment_method: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
  t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method, confirm: true, automatic_payment_methods: NO_REDIRECTS, ...extra });

describe('confirming with test cards', () => {
  it.each(['pm_card_visa', 'pm_card_mastercard', 'pm_card_amex'])('succeeds with %s and creates a charge', async (id) => {
    const intent = await charge(id, { description: 'top-up', metadata: { client: 'c1' } });
    expect(intent).toMatchObject({
      id: expect.stringMatching(/^pi_/),
      object: 'payment_intent',
      status: 'succeeded',
      amount: 500,
      amount_received: 500,
      currency: 'usd',
      payment_method: id,
      description: 'top-up',
      metadata: { client: 'c1' },
      confirmation_method: 'automatic',
      automatic_payment_methods: NO_REDIRECTS,
      last_payment_error: null,
      latest_charge: expect.stringMatching(/^ch_/),
      livemode: false,
    });
    const ch = await t.stripe.charges.retrieve(intent.latest_charge as string);
    expect(ch).toMatchObject({ object: 'charge', status: 'succeeded', paid: true, captured: true, amount: 500, payment_intent: intent.id, refunded: false });
  });

  it('succeeds with any other Luhn-valid created card', async () => {
    const method = await t.stripe.paymentMethods.create(cardParams('6011111111111117'));
    expect((await charge(method.id)).status).toBe('succeeded');
  });

  it.each([
    ['pm_card_chargeDeclined', 'card_declined', 'generic_decline', 'Your card was declined.'],
    ['pm_card_chargeDeclinedInsufficientFunds', 'card_declined', 'insufficient_funds', 'Your card has insufficient funds.'],
    ['pm_card_chargeDeclinedExpiredCard', 'expired_card', 'expired_card', 'Your card has expired.'],
    ['pm_card_chargeDeclinedProcessingError', 'processing_error', 'processing_error', 'An error occurred while processing your card. Try again in a little bit.'],
  ])('declines %s with a 402 card error carrying the stored PaymentIntent', async (id, code, declineCode, message) => {
    const error = await rejection(charge(id));
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({ statusCode: 402, type: 'StripeCardError', code, decline_code: declineCode, message, requestId: expect.stringMatching(/^req_/) });
    const intent = error.payment_intent as Stripe.PaymentIntent;
    expect(intent).toMatchObject({
      status: 'requires_payment_method',
      payment_method: null,
      last_payment_error: { type: 'card_error', code, decline_code: declineCode, message, payment_method: { id } },
    });
    expect(await t.stripe.paymentIntents.retrieve(intent.id)).toEqual(intent);
    expect(await t.stripe.charges.retrieve(intent.latest_charge as string)).toMatchObject({ status: 'failed', paid: false, failure_code: code });
  });

  it('leaves pm_card_authenticationRequired in requires_action without an error', async () => {
    const intent = await charge('pm_card_authenticationRequired');
    expect(intent).toMatchObject({ status: 'requires_action', next_action: { type: 'use_stripe_sdk' }, latest_charge: null });
    const redirect = await charge('pm_card_authenticationRequired', { automatic_payment_methods: { enabled: true }, return_url: 'https://example.com/back' });
    expect(redirect.next_action).toMatchObject({ type: 'redirect_to_url', redirect_to_url: { return_url: 'https://example.com/back' } });
  });

  it('declines an authentication-required card off-session', async () => {
    const error = await rejection(charge('pm_card_authenticationRequired', { off_session: true }));
    expect(error).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'authentication_required' });
  });

  it('puts a us_bank_account payment in processing', async () => {
    const intent = await charge('pm_usBankAccount');
    expect(intent).toMatchObject({ status: 'processing', latest_charge: expect.stringMatching(/^py_/) });
    const cardOnly = await rejection(charge('pm_usBankAccount', { automatic_payment_methods: undefined, allowed_payment_method_types: ['card'] }));
    expect(cardOnly).toMatchObject({ statusCode: 400, param: 'payment_method' });
  });

  it('holds the funds with capture_method manual', async () => {
    const intent = await charge('pm_card_visa', { capture_method: 'manual' });
    expect(intent).toMatchObject({ status: 'requires_capture', amount_capturable: 500, amount_received: 0 });
  });
});

describe('creating without confirming', () => {
  it('waits for a payment method or a confirmation', async () => {
    const bare = await t.stripe.paymentIntents.create({ amount: 1000, currency: 'EUR' });
    expect(bare).toMatchObject({
      status: 'requires_payment_method',
      currency: 'eur',
      payment_method: null,
      capture_method: 'automatic_async',
      automatic_payment_methods: { enabled: true },
      client_secret: expect.stringMatching(new RegExp(`^${bare.id}_secret_`)),
    });
    const withMethod = await t.stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: 'pm_card_visa', allowed_payment_method_types: ['card'] });
    expect(withMethod).toMatchObject({
      status: 'requires_confirmation',
      automatic_payment_methods: null,
      allowed_payment_method_types: ['card'],
      payment_method_types: ['card'],
    });
  });

  it('accepts payment_method_types[] of older API versions and excluded_payment_method_types', async () => {
    const legacy = await rawCall(t.emulator, 'POST', '/v1/payment_intents', 'amount=500&currency=usd&payment_method_types[]=card&payment_method=pm_card_visa&confirm=true');
    expect(legacy.body).toMatchObject({ status: 'succeeded', payment_method_types: ['card'], automatic_payment_methods: null });
    const excluded = await t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', excluded_payment_method_types: ['us_bank_account'] });
    expect(excluded).toMatchObject({ payment_method_types: ['card'], excluded_payment_method_types: ['us_bank_account'], automatic_payment_methods: { enabled: true } });
    const unknown = rejection(t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', allowed_payment_method_types: ['klarna'] }));
    expect(await unknown).toMatchObject({ statusCode: 400, param: 'allowed_payment_method_types' });
  });
});

describe('validation', () => {
  it.each([
    [{ amount: 49 }, 'amount_too_small', 'Amount must be at least $0.50 usd'],
    [{ amount: 100_000_000 }, 'amount_too_large', 'Amount must be no more than $999,999.99 usd'],
    [{ amount: 29, currency: 'gbp' }, 'amount_too_small', 'Amount must be at least £0.30 gbp'],
    [{ amount: 49, currency: 'jpy' }, 'amount_too_small', 'Amount must be at least ¥50 jpy'],
    [{ amount: 499, currency: 'kwd' }, 'amount_too_small', 'Amount must be at least 0.500 kwd'],
  ])('rejects %o with %s', async (params, code, message) => {
    const error = await rejection(t.stripe.paymentIntents.create({ currency: 'usd', ...params }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({ statusCode: 400, code, param: 'amount', message });
  });

  it('accepts the exact minimum and maximum', async () => {
    expect((await t.stripe.paymentIntents.create({ amount: 50, currency: 'usd' })).amount).toBe(50);
    expect((await t.stripe.paymentIntents.create({ amount: 99_999_999, currency: 'usd' })).amount).toBe(99_999_999);
    expect((await t.stripe.paymentIntents.create({ amount: 1500, currency: 'czk' })).currency).toBe('czk');
  });

  it('rejects an unknown currency, a non-positive amount and a non-integer amount', async () => {
    expect(await rejection(t.stripe.paymentIntents.create({ amount: 500, currency: 'xyz' }))).toMatchObject({
      statusCode: 400,
      param: 'currency',
      message: expect.stringMatching(/^Invalid currency: xyz/),
    });
    expect(await rejection(t.stripe.paymentIntents.create({ amount: 0, currency: 'usd' }))).toMatchObject({ param: 'amount' });
    expect((await rawCall(t.emulator, 'POST', '/v1/payment_intents', 'amount=5.5&currency=usd')).body.error).toMatchObject({ param: 'amount', message: 'Invalid integer: 5.5' });
  });

  it('names unknown parameters, top-level and nested, and missing ones', async () => {
    const unknown = await rejection(t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', colour: 'red' } as Stripe.PaymentIntentCreateParams));
    expect(unknown).toMatchObject({ statusCode: 400, param: 'colour', message: 'Received unknown parameter: colour' });
    const nested = await rawCall(t.emulator, 'POST', '/v1/payment_intents', 'amount=500&currency=usd&automatic_payment_methods[enabled]=true&automatic_payment_methods[foo]=1');
    expect(nested.body.error).toMatchObject({ param: 'automatic_payment_methods[foo]', message: 'Received unknown parameter: automatic_payment_methods[foo]' });
    const missing = await rejection(t.stripe.paymentIntents.create({ amount: 500 } as Stripe.PaymentIntentCreateParams));
    expect(missing).toMatchObject({ statusCode: 400, param: 'currency', message: 'Missing required param: currency.' });
  });

  it('requires a return_url when confirming with redirect-capable automatic payment methods', async () => {
    for (const settings of [{ automatic_payment_methods: { enabled: true } }, {}]) {
      const error = await rejection(t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, ...settings }));
      expect(error).toMatchObject({ statusCode: 400, message: expect.stringMatching(/you must provide a `return_url`/) });
    }
    const cardOnly = await t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
    expect(cardOnly.status).toBe('succeeded');
  });

  it('rejects inconsistent combinations', async () => {
    const both = t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', allowed_payment_method_types: ['card'], automatic_payment_methods: { enabled: true } });
    expect(await rejection(both)).toMatchObject({ statusCode: 400, message: expect.stringMatching(/only specify one of/) });
    const noMethod = t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', confirm: true, automatic_payment_methods: NO_REDIRECTS });
    expect(await rejection(noMethod)).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    const returnUrl = t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', return_url: 'https://example.com' });
    expect(await rejection(returnUrl)).toMatchObject({ statusCode: 400, param: 'return_url' });
  });

  it('answers 404 for an unknown customer, payment method or intent', async () => {
    expect(await rejection(charge('pm_card_visa', { customer: 'cus_nope' }))).toMatchObject({ statusCode: 404, param: 'customer', message: "No such customer: 'cus_nope'" });
    expect(await rejection(charge('pm_nope'))).toMatchObject({ statusCode: 404, param: 'payment_method' });
    expect(await rejection(t.stripe.paymentIntents.retrieve('pi_nope'))).toMatchObject({ statusCode: 404, message: "No such payment_intent: 'pi_nope'" });
  });

  it('refuses a payment method attached to another customer', async () => {
    const method = await t.stripe.paymentMethods.create(cardParams('4242424242424242'));
    await t.stripe.customers.create({ payment_method: method.id });
    const other = await t.stripe.customers.create({});
    expect(await rejection(charge(method.id, { customer: other.id }))).toMatchObject({ statusCode: 400, param: 'payment_method' });
    expect(await rejection(charge(method.id))).toMatchObject({ statusCode: 400, param: 'payment_method' });
  });
});

describe('retrieving and listing', () => {
  it('lists a customer’s intents newest first, with pagination and expansion', async () => {
    const customer = await t.stripe.customers.create({});
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await charge('pm_card_visa', { customer: customer.id, amount: 500 + i }));
    await charge('pm_card_visa');
    const all = await t.stripe.paymentIntents.list({ customer: customer.id });
    expect(all).toMatchObject({ object: 'list', has_more: false, url: '/v1/payment_intents' });
    expect(all.data.map((pi) => pi.amount)).toEqual([502, 501, 500]);
    const first = await t.stripe.paymentIntents.list({ customer: customer.id, limit: 2 });
    expect(first.has_more).toBe(true);
    const rest = await t.stripe.paymentIntents.list({ customer: customer.id, limit: 2, starting_after: first.data[1]?.id as string });
    expect(rest.data.map((pi) => pi.id)).toEqual([created[0]?.id]);
    const autoPaged = await t.stripe.paymentIntents.list({ customer: customer.id, limit: 1 }).autoPagingToArray({ limit: 10 });
    expect(autoPaged).toHaveLength(3);
    const expanded = await t.stripe.paymentIntents.list({ customer: customer.id, limit: 1, expand: ['data.customer', 'data.latest_charge'] });
    expect(expanded.data[0]).toMatchObject({ customer: { id: customer.id, object: 'customer' }, latest_charge: { object: 'charge' } });
    expect(await rejection(t.stripe.paymentIntents.retrieve(created[0]?.id as string, { expand: ['amount'] }))).toMatchObject({ statusCode: 400, param: 'expand' });
  });
});
