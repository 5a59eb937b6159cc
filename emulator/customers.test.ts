// Customers through the official SDK: create with a payment method, retrieve, search, search indexing lag.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { cardParams, rawCall, rejection, startTestEmulator, useTestEmulator } from './test-support.ts';

const t = useTestEmulator();

describe('POST /v1/customers', () => {
  it('creates a customer and attaches its payment method', async () => {
    const method = await t.stripe.paymentMethods.create(cardParams('4242424242424242'));
    const customer = await t.stripe.customers.create({
      payment_method: method.id,
      invoice_settings: { default_payment_method: method.id },
      email: 'jenny@example.com',
      name: 'Jenny Rosen',
      description: 'test',
      metadata: { client: 'abc' },
    });
    expect(customer).toMatchObject({
      id: expect.stringMatching(/^cus_/),
      object: 'customer',
      email: 'jenny@example.com',
      name: 'Jenny Rosen',
      description: 'test',
      metadata: { client: 'abc' },
      invoice_settings: { default_payment_method: method.id },
      livemode: false,
    });
    expect((await t.stripe.paymentMethods.retrieve(method.id)).customer).toBe(customer.id);
    expect(await t.stripe.customers.retrieve(customer.id)).toEqual(customer);
    const expanded = await t.stripe.customers.retrieve(customer.id, { expand: ['invoice_settings.default_payment_method'] });
    expect(expanded).toMatchObject({ invoice_settings: { default_payment_method: { id: method.id, object: 'payment_method' } } });
  });

  it('keeps the shared test ids unattached and refuses a payment method attached elsewhere', async () => {
    await t.stripe.customers.create({ payment_method: 'pm_card_visa' });
    expect((await t.stripe.paymentMethods.retrieve('pm_card_visa')).customer).toBeNull();
    const method = await t.stripe.paymentMethods.create(cardParams('4242424242424242'));
    await t.stripe.customers.create({ payment_method: method.id });
    const error = await rejection(t.stripe.customers.create({ payment_method: method.id }));
    expect(error).toMatchObject({ statusCode: 400, param: 'payment_method' });
  });

  it('answers 404 for an unknown payment method or customer', async () => {
    const unknownMethod = await rejection(t.stripe.customers.create({ payment_method: 'pm_nope' }));
    expect(unknownMethod).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(unknownMethod).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'payment_method' });
    const unknownCustomer = await rejection(t.stripe.customers.retrieve('cus_nope'));
    expect(unknownCustomer).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'id', message: "No such customer: 'cus_nope'" });
  });

  it('refuses a default payment method that is not attached', async () => {
    const error = await rejection(t.stripe.customers.create({ invoice_settings: { default_payment_method: 'pm_card_visa' } }));
    expect(error).toMatchObject({ statusCode: 400, param: 'invoice_settings[default_payment_method]' });
  });
});

describe('GET /v1/customers/search', () => {
  it('finds customers by metadata in either quote style, with AND and OR', async () => {
    const a = await t.stripe.customers.create({ email: 'A@example.com', metadata: { client: 'one', tier: 'gold' } });
    const b = await t.stripe.customers.create({ metadata: { client: 'two', tier: 'gold' } });
    const ids = async (query: string) => (await t.stripe.customers.search({ query })).data.map((c) => c.id);
    expect(await ids("metadata['client']:'one'")).toEqual([a.id]);
    expect(await ids('metadata["client"]:"two"')).toEqual([b.id]);
    expect(await ids("metadata['tier']:'gold' AND metadata['client']:'two'")).toEqual([b.id]);
    expect(await ids("metadata['client']:'one' OR metadata['client']:'two'")).toEqual([b.id, a.id]);
    expect(await ids('email:"a@example.com"')).toEqual([a.id]);
    expect(await ids("metadata['client']:'three'")).toEqual([]);
    const result = await t.stripe.customers.search({ query: "metadata['tier']:'gold'", limit: 1 });
    expect(result).toMatchObject({ object: 'search_result', has_more: true, next_page: expect.any(String), url: '/v1/customers/search' });
    const next = await t.stripe.customers.search({ query: "metadata['tier']:'gold'", limit: 1, page: result.next_page as string });
    expect(next).toMatchObject({ has_more: false, next_page: null, data: [{ id: a.id }] });
  });

  it('rejects queries outside the supported subset with param query', async () => {
    for (const query of ['created>5', "metadata['a']:'b' AND metadata['c']:'d' OR metadata['e']:'f'", 'metadata[a]:b']) {
      const error = await rejection(t.stripe.customers.search({ query }));
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(error).toMatchObject({ statusCode: 400, param: 'query' });
    }
    expect((await rawCall(t.emulator, 'GET', '/v1/customers/search')).body.error).toMatchObject({ param: 'query', message: 'Missing required param: query.' });
  });

  it('does not find a customer until the search lag has passed', async () => {
    await t.control.setSearchLag(150);
    await t.stripe.customers.create({ metadata: { client: 'lagging' } });
    const search = () => t.stripe.customers.search({ query: "metadata['client']:'lagging'" });
    expect((await search()).data).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await search()).data).toHaveLength(1);
  });
});

describe('search lag option', () => {
  it('applies searchLagMs from startEmulator and restores it on reset', async () => {
    const lagging = await startTestEmulator({ searchLagMs: 60_000 });
    try {
      await lagging.stripe.customers.create({ metadata: { k: 'v' } });
      expect((await lagging.stripe.customers.search({ query: "metadata['k']:'v'" })).data).toHaveLength(0);
      await lagging.control.setSearchLag(0);
      expect((await lagging.stripe.customers.search({ query: "metadata['k']:'v'" })).data).toHaveLength(1);
      await lagging.control.reset();
      await lagging.stripe.customers.create({ metadata: { k: 'v' } });
      expect((await lagging.stripe.customers.search({ query: "metadata['k']:'v'" })).data).toHaveLength(0);
    } finally {
      await lagging.emulator.close();
    }
  });
});
