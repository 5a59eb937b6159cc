// Tests of the Stripe processor: the API base of a URL, and its client options against the emulator (customer search quoting, SDK network retries).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EmulatorControl, startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { Credit402ConfigError } from '../config/config-error.ts';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { PaymentError } from './processor.ts';
import { StripeProcessor, stripeApiBase, type StripeProcessorOptions } from './stripe-processor.ts';

const CLIENT = 'e'.repeat(64);

describe('stripeApiBase', () => {
  it('reads host, port and protocol from a URL, with the protocol\'s default port', () => {
    expect(stripeApiBase('http://127.0.0.1:12111')).toEqual({ host: '127.0.0.1', port: 12111, protocol: 'http' });
    expect(stripeApiBase('https://api.stripe.com')).toEqual({ host: 'api.stripe.com', port: 443, protocol: 'https' });
    expect(stripeApiBase(new URL('http://localhost/'))).toEqual({ host: 'localhost', port: 80, protocol: 'http' });
  });
});

describe('StripeProcessor options', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControl;
  const processor = (options: Partial<StripeProcessorOptions> = {}) =>
    new StripeProcessor({ secretKey: 'sk_test_options', api: { host: '127.0.0.1', port: emulator.port, protocol: 'http' }, ...options });

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    control = new EmulatorControl(emulator.controlUrl);
  });
  beforeEach(() => control.reset());
  afterAll(async () => {
    await emulator?.close();
  });

  it('searches customers in single quotes by default, in double quotes when asked, and both find the customer', async () => {
    const paymentMethodId = await createCardPaymentMethod(emulator.url);
    const single = processor();
    const double = processor({ customerSearchQuote: 'double' });
    expect(single.customerQuery(CLIENT)).toBe(`metadata['credit402_client_id']:'${CLIENT}'`);
    expect(double.customerQuery(CLIENT)).toBe(`metadata["credit402_client_id"]:"${CLIENT}"`);
    const created = await single.findOrCreateCustomer(CLIENT, paymentMethodId);
    expect(await double.findOrCreateCustomer(CLIENT, paymentMethodId)).toBe(created);
    const queries = (await control.journal({ path: '/v1/customers/search' })).map((entry) => entry.params.query);
    expect(queries).toEqual([single.customerQuery(CLIENT), double.customerQuery(CLIENT)]);
  });

  it('tells the gate whether a charge succeeded, with the PaymentIntent status as the reason when it did not', async () => {
    const charge = async (clientId: string, paymentMethodId: string) => {
      const stripe = processor();
      const customerId = await stripe.findOrCreateCustomer(clientId, paymentMethodId);
      return stripe.charge({ amountCents: 500, currency: 'usd', paymentMethodId, customerId, description: 'x', idempotencyKey: `k-${clientId}`, metadata: {} });
    };
    expect(await charge('1'.repeat(64), await createCardPaymentMethod(emulator.url))).toEqual({ id: expect.stringMatching(/^pi_/), succeeded: true });
    expect(await charge('2'.repeat(64), 'pm_card_authenticationRequired')).toEqual({ id: expect.stringMatching(/^pi_/), succeeded: false, reason: 'requires_action' });
  });

  it('refuses an unknown quoting', () => {
    expect(() => processor({ customerSearchQuote: 'back' as 'single' })).toThrow(Credit402ConfigError);
  });

  it.each([
    [undefined, 2],
    [0, 2],
    [1, 2],
    [2, 3],
  ])('with maxNetworkRetries %s, a dropped PaymentIntent creation is sent %i times, always with the same key', async (maxNetworkRetries, attempts) => {
    const paymentMethodId = await createCardPaymentMethod(emulator.url);
    const fault = await control.injectFault({ method: 'POST', path: '/v1/payment_intents', kind: 'reset', untilRemoved: true });
    const charge = processor(maxNetworkRetries === undefined ? {} : { maxNetworkRetries }).charge({
      amountCents: 500, currency: 'usd', paymentMethodId, customerId: (await processor().findOrCreateCustomer(CLIENT, paymentMethodId)), description: 'x', idempotencyKey: 'k-retries', metadata: {},
    });
    await expect(charge).rejects.toBeInstanceOf(PaymentError);
    expect((await control.removeFault(fault.id)).fired).toBe(attempts);
    const keys = (await control.journal({ path: '/v1/payment_intents' })).map((entry) => entry.idempotencyKey);
    expect(keys).toEqual(Array.from({ length: attempts }, () => 'k-retries'));
  });
});
