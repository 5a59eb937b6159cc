// Webhooks: signed deliveries verified by the official SDK, refund and dispute events, attempts and redelivery.
import { createServer } from 'node:http';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rejection, startTestEmulator } from './test-support.ts';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { EventRecord } from './control-types.ts';
import type { TestEmulator } from './test-support.ts';

interface Received {
  body: string;
  signature: string;
  contentType: string | undefined;
}

/** A local webhook endpoint that records deliveries and answers `status`. */
class Receiver {
  readonly received: Received[] = [];
  status = 200;
  readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['stripe-signature']), contentType: req.headers['content-type'] });
      res.writeHead(this.status).end();
    });
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const SECRET = 'whsec_test_secret';
let t: TestEmulator;
let receiver: Receiver;
let endpointUrl: string;

beforeAll(async () => {
  t = await startTestEmulator();
  receiver = new Receiver();
  endpointUrl = await receiver.start();
});
afterAll(async () => {
  await t.emulator.close();
  await receiver.close();
});
beforeEach(async () => {
  await t.control.reset();
  receiver.received.length = 0;
  receiver.status = 200;
  await t.control.registerWebhook(endpointUrl, SECRET);
});

const pay = (payment_method = 'pm_card_visa') =>
  t.stripe.paymentIntents.create(
    { amount: 500, currency: 'usd', payment_method, confirm: true, allowed_payment_method_types: ['card'] },
    { idempotencyKey: `pay-${payment_method}-${Math.random()}` },
  );
const delivered = (type: string) => t.control.waitForEvent((r) => r.event.type === type && r.attempts.length > 0);
const verified = (index: number): Stripe.Event => {
  const delivery = receiver.received[index];
  if (!delivery) throw new Error(`no delivery #${index}`);
  return t.stripe.webhooks.constructEvent(delivery.body, delivery.signature, SECRET);
};

describe('webhook deliveries', () => {
  it('delivers payment_intent.succeeded, signed so that constructEvent accepts it', async () => {
    const intent = await pay();
    const record = await delivered('payment_intent.succeeded');
    expect(record.attempts).toMatchObject([{ url: endpointUrl, status: 200, error: null }]);
    expect(receiver.received[0]?.contentType).toMatch(/^application\/json/);
    const event = verified(0);
    expect(event).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      object: 'event',
      type: 'payment_intent.succeeded',
      livemode: false,
      api_version: expect.any(String),
      created: expect.any(Number),
      pending_webhooks: 1,
      request: { id: intent.lastResponse.requestId, idempotency_key: expect.stringMatching(/^pay-/) },
      data: { object: { id: intent.id, object: 'payment_intent', status: 'succeeded' } },
    });
    expect((await t.control.events())[0]?.event.pending_webhooks).toBe(0);
    expect(() => t.stripe.webhooks.constructEvent(receiver.received[0]?.body ?? '', receiver.received[0]?.signature ?? '', 'whsec_wrong')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect((await t.stripe.events.retrieve(event.id)).id).toBe(event.id);
    expect((await t.stripe.events.list({ type: 'payment_intent.succeeded' })).data.map((e) => e.id)).toEqual([event.id]);
  });

  it('delivers payment_intent.payment_failed for a decline', async () => {
    const error = await rejection(pay('pm_card_chargeDeclinedInsufficientFunds'));
    await delivered('payment_intent.payment_failed');
    const event = verified(0);
    expect(event.type).toBe('payment_intent.payment_failed');
    expect(event.data.object).toMatchObject({
      id: (error.payment_intent as Stripe.PaymentIntent).id,
      status: 'requires_payment_method',
      last_payment_error: { decline_code: 'insufficient_funds' },
    });
  });

  it('refunds partially then fully, emitting charge.refunded each time', async () => {
    const intent = await pay();
    const partial = await t.control.refund(intent.id, 200);
    expect(partial.refund).toMatchObject({ id: expect.stringMatching(/^re_/), object: 'refund', amount: 200, charge: intent.latest_charge, payment_intent: intent.id, status: 'succeeded' });
    expect(partial.charge).toMatchObject({ amount_refunded: 200, refunded: false, payment_intent: intent.id });
    const rest = await t.control.refund(intent.id);
    expect(rest.refund.amount).toBe(300);
    expect(rest.charge).toMatchObject({ amount_refunded: 500, refunded: true });
    await t.control.waitForEvent((r) => r.event.id === rest.event.id && r.attempts.length > 0);
    const refunds = receiver.received.map((_, i) => verified(i)).filter((e) => e.type === 'charge.refunded');
    expect(refunds.map((e) => (e.data.object as Stripe.Charge).amount_refunded)).toEqual([200, 500]);
    expect(refunds[0]?.request).toEqual({ id: null, idempotency_key: null });
    expect((await t.stripe.charges.retrieve(intent.latest_charge as string)).refunded).toBe(true);
    await expect(t.control.refund(intent.id)).rejects.toThrow(/400: Charge .* has already been refunded/);
    await expect(t.control.refund('pi_nope')).rejects.toThrow(/404/);
  });

  it('disputes a charge, emitting charge.dispute.created', async () => {
    const intent = await pay();
    const { dispute, event } = await t.control.dispute(intent.id);
    expect(dispute).toMatchObject({ id: expect.stringMatching(/^dp_/), object: 'dispute', amount: 500, charge: intent.latest_charge, payment_intent: intent.id, status: 'needs_response' });
    await t.control.waitForEvent((r) => r.event.id === event.id && r.attempts.length > 0);
    const received = receiver.received.map((_, i) => verified(i)).find((e) => e.type === 'charge.dispute.created');
    expect(received?.data.object).toMatchObject({ id: dispute.id, charge: intent.latest_charge });
    await expect(t.control.dispute(intent.id)).rejects.toThrow(/already disputed/);
    const failed = await rejection(pay('pm_card_chargeDeclined'));
    await expect(t.control.dispute((failed.payment_intent as Stripe.PaymentIntent).id)).rejects.toThrow(/no succeeded charge/);
  });

  it('records failed attempts and redelivers on request', async () => {
    receiver.status = 500;
    await t.control.registerWebhook('http://127.0.0.1:9/unreachable', 'whsec_other');
    await pay();
    const record = await t.control.waitForEvent((r) => r.attempts.length === 2);
    const byUrl = (r: EventRecord, url: string) => r.attempts.filter((a) => a.url === url);
    expect(byUrl(record, endpointUrl)).toMatchObject([{ status: 500, error: null }]);
    expect(byUrl(record, 'http://127.0.0.1:9/unreachable')).toMatchObject([{ status: null, error: expect.any(String) }]);
    expect(record.event.pending_webhooks).toBe(2);
    receiver.status = 200;
    const attempts = await t.control.redeliver(record.event.id);
    expect(attempts.map((a) => a.status).sort()).toEqual([200, null]);
    const after = (await t.control.events()).find((r) => r.event.id === record.event.id);
    expect(after?.attempts).toHaveLength(4);
    expect(after?.event.pending_webhooks).toBe(1);
    expect(verified(1).id).toBe(record.event.id);
    await expect(t.control.redeliver('evt_nope')).rejects.toThrow(/404/);
  });

  it('validates webhook registrations', async () => {
    await expect(t.control.registerWebhook('not a url', SECRET)).rejects.toThrow(/url must be/);
    await expect(t.control.registerWebhook(endpointUrl, '')).rejects.toThrow(/secret must be/);
  });
});
