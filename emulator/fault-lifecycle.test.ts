// Faults armed until removed, scoped by contained text or idempotency key, and counted: how often each fired, also once gone.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { rejection, useTestEmulator } from './test-support.ts';

const t = useTestEmulator();

const PATH = '/v1/payment_intents';
const create = (key?: string) =>
  t.stripe.paymentIntents.create(
    { amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] },
    key === undefined ? {} : { idempotencyKey: key },
  );

describe('fault lifecycle', () => {
  it('untilRemoved hits every matching request until DELETE /faults/:id, which answers how often it fired', async () => {
    const fault = await t.control.injectFault({ path: PATH, kind: 'error500', untilRemoved: true });
    expect(fault).toMatchObject({ untilRemoved: true, remaining: null, fired: 0, active: true });
    for (let i = 0; i < 4; i++) expect(await rejection(create())).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(await t.control.removeFault(fault.id)).toMatchObject({ id: fault.id, fired: 4, active: false });
    expect((await create()).status).toBe('succeeded');
    expect(await t.control.fault(fault.id)).toMatchObject({ fired: 4, active: false });
    expect(await t.control.faults()).toEqual([]);
  });

  it('keeps the count of used-up and cleared faults until reset', async () => {
    const used = await t.control.injectFault({ path: PATH, kind: 'error500' });
    const cleared = await t.control.injectFault({ path: '/v1/customers', kind: 'error500', count: 3 });
    await rejection(create());
    await t.control.clearFaults();
    expect(await t.control.fault(used.id)).toMatchObject({ fired: 1, remaining: 0, active: false });
    expect((await t.control.faults({ all: true })).map((f) => [f.id, f.fired, f.active])).toEqual([
      [used.id, 1, false],
      [cleared.id, 0, false],
    ]);
    await t.control.reset();
    await expect(t.control.fault(used.id)).rejects.toThrow(/404: No such fault/);
    await expect(t.control.removeFault('flt_nope')).rejects.toThrow(/404/);
  });

  it('contains: hits a customer search whose query mentions the text, whatever its quoting', async () => {
    const clientId = 'a'.repeat(64);
    const fault = await t.control.injectFault({ method: 'GET', path: '/v1/customers/search', kind: 'error500', untilRemoved: true, contains: { query: clientId } });
    expect((await t.stripe.customers.search({ query: `metadata['k']:'${'b'.repeat(64)}'` })).data).toEqual([]);
    await rejection(t.stripe.customers.search({ query: `metadata['k']:'${clientId}'` }));
    await rejection(t.stripe.customers.search({ query: `metadata["other_key"]:"${clientId}"` }));
    expect((await t.control.removeFault(fault.id)).fired).toBe(2);
  });

  it('contains reads an object param as its JSON, and idempotencyKey scopes by the header', async () => {
    await t.control.injectFault({ path: '/v1/customers', kind: 'error500', contains: { metadata: 'needle' } });
    expect((await t.stripe.customers.create({ metadata: { k: 'hay' } })).object).toBe('customer');
    await rejection(t.stripe.customers.create({ metadata: { k: 'a needle' } }));
    await t.control.injectFault({ path: PATH, kind: 'error500', idempotencyKey: 'k-2' });
    expect((await create('k-1')).status).toBe('succeeded');
    expect(await rejection(create('k-2'))).toBeInstanceOf(Stripe.errors.StripeAPIError);
  });

  it('rejects untilRemoved on a barrier, and empty contains texts', async () => {
    await expect(t.control.injectFault({ path: PATH, kind: 'barrier', untilRemoved: true })).rejects.toThrow(/400: a barrier holds count requests/);
    await expect(t.control.injectFault({ path: PATH, kind: 'error500', contains: { query: '' } })).rejects.toThrow(/contains must be/);
  });
});
