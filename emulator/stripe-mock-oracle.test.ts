// The stripe-mock oracle, against a stand-in stripe-mock: its 400s win, everything else is ignored.
import { createServer } from 'node:http';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection, startTestEmulator } from './test-support.ts';
import type { AddressInfo } from 'node:net';
import type { TestEmulator } from './test-support.ts';

interface Forwarded {
  method: string | undefined;
  url: string | undefined;
  body: string;
  authorization: string | undefined;
}

const forwarded: Forwarded[] = [];
/** Rejects any request whose body or query mentions "forbidden"; answers 200 `{}` or 500 otherwise. */
const standIn = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    forwarded.push({ method: req.method, url: req.url, body, authorization: req.headers.authorization });
    if (`${req.url}${body}`.includes('forbidden')) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'stripe-mock says no', param: 'description' } }));
    } else {
      res.writeHead(req.url?.includes('boom') ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
    }
  });
});

let t: TestEmulator;
beforeAll(async () => {
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  t = await startTestEmulator({ stripeMockUrl: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}` });
});
afterAll(async () => {
  await t.emulator.close();
  standIn.closeAllConnections();
  await new Promise((resolve) => standIn.close(resolve));
});

describe('stripe-mock oracle', () => {
  it('forwards method, path, query, body and Authorization, and executes when stripe-mock accepts', async () => {
    forwarded.length = 0;
    const customer = await t.stripe.customers.create({ metadata: { a: 'b' } });
    expect(customer.id).toMatch(/^cus_/);
    await t.stripe.customers.search({ query: "metadata['a']:'b'" });
    expect(forwarded).toEqual([
      { method: 'POST', url: '/v1/customers', body: 'metadata[a]=b', authorization: 'Bearer sk_test_x' },
      { method: 'GET', url: '/v1/customers/search?query=metadata[%27a%27]%3A%27b%27', body: '', authorization: 'Bearer sk_test_x' },
    ]);
  });

  it('answers with stripe-mock’s 400 instead of executing, and journals it', async () => {
    const error = await rejection(t.stripe.customers.create({ description: 'forbidden' }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({ statusCode: 400, message: 'stripe-mock says no', param: 'description' });
    const [entry] = await t.control.journal({ path: '/v1/customers', method: 'POST', since: 1 });
    expect(entry).toMatchObject({ status: 400, oracle: true, response: { error: { message: 'stripe-mock says no' } } });
  });

  it('ignores stripe-mock’s other answers', async () => {
    const error = await rejection(t.stripe.paymentIntents.retrieve('pi_boom'));
    expect(error).toMatchObject({ statusCode: 404, message: "No such payment_intent: 'pi_boom'" });
  });

  it('answers 500 naming STRIPE_MOCK_URL when stripe-mock is unreachable', async () => {
    const orphan = await startTestEmulator({ stripeMockUrl: 'http://127.0.0.1:9' });
    try {
      const error = await rejection(orphan.stripe.customers.create({}));
      expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
      expect(error.message).toMatch(/stripe-mock oracle at http:\/\/127\.0\.0\.1:9 \(STRIPE_MOCK_URL\) is unreachable/);
      expect(await orphan.control.journal()).toMatchObject([{ status: 500 }]);
    } finally {
      await orphan.emulator.close();
    }
  });
});
