// The control API off, webhook secrets that never come back out, held events, charges without a PaymentIntent, disputes.
import { createServer } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawCall, sdkFor, startTestEmulator } from './test-support.ts';
import { startEmulator } from './index.ts';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { TestEmulator } from './test-support.ts';

const SECRET = 'whsec_control_options_secret';

/** A local endpoint counting deliveries. */
function receiver(): { server: Server; bodies: string[]; url: () => string } {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end();
    });
  });
  return { server, bodies, url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

describe('control API switched off', () => {
  it('answers /_emulator like any unknown Stripe URL, still serves the API and delivers to endpoints registered in-process', async () => {
    const emulator = await startEmulator({ port: 0, controlApi: false });
    const hook = receiver();
    await new Promise<void>((resolve) => hook.server.listen(0, '127.0.0.1', resolve));
    try {
      expect(emulator.controlApi).toBe(false);
      for (const path of ['/_emulator', '/_emulator/webhooks', '/_emulator/journal']) {
        const answer = await fetch(`${emulator.url}${path}`);
        expect(answer.status, path).toBeGreaterThanOrEqual(400);
        expect(await answer.text()).not.toContain(SECRET);
      }
      const registered = await fetch(`${emulator.url}/_emulator/webhooks`, { method: 'POST', body: JSON.stringify({ url: hook.url(), secret: 'whsec_x' }) });
      expect(registered.status).toBeGreaterThanOrEqual(400);
      expect(emulator.registerWebhook(hook.url(), SECRET)).toEqual({ id: expect.stringMatching(/^we_/), url: hook.url() });
      const stripe = sdkFor(emulator);
      await stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
      const deadline = Date.now() + 5_000;
      while (hook.bodies.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(hook.bodies).toHaveLength(1);
    } finally {
      hook.server.close();
      await emulator.close();
    }
  });
});

describe('control API', () => {
  let t: TestEmulator;
  const hook = receiver();
  beforeAll(async () => {
    t = await startTestEmulator();
    await new Promise<void>((resolve) => hook.server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    hook.server.close();
    await t.emulator.close();
  });
  beforeEach(async () => {
    await t.control.reset();
    hook.bodies.length = 0;
  });

  it('never hands a webhook secret back: not when registering, not when listing', async () => {
    const registered = await t.control.registerWebhook(hook.url(), SECRET);
    expect(registered).toEqual({ id: expect.stringMatching(/^we_/), url: hook.url() });
    const listed = await (await fetch(`${t.emulator.controlUrl}/webhooks`)).text();
    expect(listed).toContain(hook.url());
    expect(listed).not.toContain(SECRET);
  });

  it('holds the events of a payment method: recorded without delivery, delivered by redeliver', async () => {
    await t.control.registerWebhook(hook.url(), SECRET);
    await t.control.holdEvents('pm_card_mastercard');
    const held = await t.stripe.paymentIntents.create({ amount: 700, currency: 'usd', payment_method: 'pm_card_mastercard', confirm: true, allowed_payment_method_types: ['card'] });
    const refund = await t.control.refund(held.id, 100);
    const dispute = await t.control.dispute(held.id, { amount: 200 });
    await t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
    await t.control.waitForEvent((r) => r.attempts.length > 0);
    const records = await t.control.events();
    const about = records.filter((r) => r.held);
    expect(about.map((r) => r.event.type)).toEqual(['payment_intent.succeeded', 'charge.refunded', 'charge.dispute.created']);
    expect(about.every((r) => r.attempts.length === 0)).toBe(true);
    expect(hook.bodies).toHaveLength(1);
    expect(await t.control.redeliver(refund.event.id)).toMatchObject([{ status: 200 }]);
    expect(dispute.dispute).toMatchObject({ amount: 200, payment_intent: held.id, charge: refund.charge.id });
  });

  it('creates charges without a PaymentIntent, refunds and disputes them, and serves disputes at GET /v1/disputes/:id', async () => {
    const charge = await t.control.createCharge({ paymentMethod: 'pm_card_visa', amount: 1000 });
    expect(charge).toMatchObject({ object: 'charge', status: 'succeeded', amount: 1000, payment_intent: null, payment_method: 'pm_card_visa' });
    expect(await t.stripe.charges.retrieve(charge.id)).toMatchObject({ id: charge.id, payment_intent: null });
    const refund = await t.control.refund(charge.id, 300);
    expect(refund.event.data.object).toMatchObject({ id: charge.id, amount_refunded: 300, payment_intent: null });
    const dispute = await t.control.dispute(charge.id);
    expect(dispute.dispute).toMatchObject({ amount: 700, payment_intent: null, charge: charge.id });
    expect(await t.stripe.disputes.retrieve(dispute.dispute.id)).toMatchObject({ id: dispute.dispute.id, amount: 700, payment_intent: null });
    expect((await rawCall(t.emulator, 'GET', '/v1/disputes/dp_missing')).body.error).toMatchObject({ code: 'resource_missing', message: "No such dispute: 'dp_missing'" });
    await expect(t.control.dispute(charge.id)).rejects.toThrow(/already disputed/);
    await expect(t.control.createCharge({ paymentMethod: 'pm_missing', amount: 1 })).rejects.toThrow(/payment_method/);
  });

  it('refuses a dispute above what is left on the charge', async () => {
    const intent = await t.stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
    await t.control.refund(intent.id, 400);
    await expect(t.control.dispute(intent.id, { amount: 101 })).rejects.toThrow(/greater than the unrefunded amount/);
    expect((await t.control.dispute(intent.id, { amount: 100 })).dispute.amount).toBe(100);
  });
});
