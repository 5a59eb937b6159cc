// Injected faults surfacing as the official SDK's errors; faulted calls change no state.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { rejection, sdkFor, startTestEmulator, useTestEmulator } from './test-support.ts';

const t = useTestEmulator();

const PATH = '/v1/payment_intents';
const create = (stripe: Stripe = t.stripe) =>
  stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });

describe('faults', () => {
  it('answers error500 with a StripeAPIError and executes nothing', async () => {
    await t.control.injectFault({ path: PATH, kind: 'error500' });
    const error = await rejection(create());
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(error).toMatchObject({ statusCode: 500, rawType: 'api_error' });
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(0);
    expect((await create()).status).toBe('succeeded');
    const journal = await t.control.journal({ path: PATH, method: 'POST' });
    expect(journal.map((e) => [e.status, e.fault])).toEqual([
      [500, 'error500'],
      [200, undefined],
    ]);
  });

  it('answers rateLimit429 with a StripeRateLimitError', async () => {
    await t.control.injectFault({ path: PATH, kind: 'rateLimit429', count: 2 });
    for (let i = 0; i < 2; i++) {
      const error = await rejection(create());
      expect(error).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
      expect(error).toMatchObject({ statusCode: 429, code: 'rate_limit' });
    }
    expect(await t.control.faults()).toEqual([]);
  });

  it('resets the connection: the SDK retries once by itself, so two resets surface a StripeConnectionError', async () => {
    await t.control.injectFault({ path: PATH, kind: 'reset', count: 2 });
    const error = await rejection(create());
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    const journal = await t.control.journal({ path: PATH });
    expect(journal.map((e) => [e.status, e.fault, e.response])).toEqual([
      [null, 'reset', null],
      [null, 'reset', null],
    ]);
    expect(journal[0]?.idempotencyKey).toBe(journal[1]?.idempotencyKey);
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(0);

    await t.control.injectFault({ path: PATH, kind: 'reset', count: 1 });
    expect((await create()).status).toBe('succeeded');
  });

  it('holds the request on timeout, which the SDK reports as a StripeConnectionError', async () => {
    await t.control.injectFault({ method: 'POST', path: PATH, kind: 'timeout', delayMs: 5_000 });
    const started = Date.now();
    const error = await rejection(create(sdkFor(t.emulator, 'sk_test_x', { timeout: 300 })));
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(error.message).toMatch(/timeout/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await t.control.journal({ path: PATH }))[0]).toMatchObject({ status: null, fault: 'timeout' });
    expect((await t.stripe.paymentIntents.list()).data).toHaveLength(0);
  });

  it('drops a held request after delayMs (a reset, so the SDK retries once)', async () => {
    await t.control.injectFault({ path: PATH, kind: 'timeout', delayMs: 100, count: 2 });
    expect(await rejection(create())).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect((await t.control.journal({ path: PATH })).map((e) => e.fault)).toEqual(['timeout', 'timeout']);
  });

  it('delays and then answers normally', async () => {
    await t.control.injectFault({ path: PATH, kind: 'delay', delayMs: 200 });
    const started = Date.now();
    expect((await create()).status).toBe('succeeded');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect((await t.control.journal({ path: PATH }))[0]).toMatchObject({ status: 200, fault: 'delay' });
  });

  it('matches by method and path prefix, in order, and can be cleared', async () => {
    await t.control.injectFault({ method: 'GET', path: '/v1/payment_intents', kind: 'error500' });
    expect((await create()).status).toBe('succeeded');
    expect(await rejection(t.stripe.paymentIntents.retrieve('pi_x'))).toBeInstanceOf(Stripe.errors.StripeAPIError);
    await t.control.injectFault({ path: '/v1/customers', kind: 'error500', count: 5 });
    expect(await t.control.faults()).toMatchObject([{ path: '/v1/customers', remaining: 5, count: 5 }]);
    await t.control.clearFaults();
    expect((await t.stripe.customers.create({})).object).toBe('customer');
  });

  it('hits only requests whose params match', async () => {
    await t.control.injectFault({ path: PATH, kind: 'error500', match: { payment_method: 'pm_card_mastercard' } });
    expect((await create()).status).toBe('succeeded');
    const other = t.stripe.paymentIntents.create({
      amount: 500, currency: 'usd', payment_method: 'pm_card_mastercard', confirm: true, allowed_payment_method_types: ['card'],
    });
    expect(await rejection(other)).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(await t.control.faults()).toEqual([]);
  });

  it('rejects malformed fault specs', async () => {
    await expect(t.control.injectFault({ path: PATH, kind: 'explode' as 'reset' })).rejects.toThrow(/400: kind must be one of/);
    await expect(t.control.injectFault({ path: 'v1', kind: 'reset' })).rejects.toThrow(/path must be/);
    await expect(t.control.injectFault({ path: PATH, kind: 'reset', count: 0 })).rejects.toThrow(/count must be/);
  });
});

describe('close', () => {
  it('ends requests held by a timeout fault instead of waiting', async () => {
    const own = await startTestEmulator();
    await own.control.injectFault({ path: PATH, kind: 'timeout', delayMs: 60_000 });
    const pending = rejection(create(own.stripe));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await own.emulator.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await pending).toBeInstanceOf(Stripe.errors.StripeConnectionError);
  });
});
