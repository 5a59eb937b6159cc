// Integration tests of the webhook endpoint on both adapters: crediting, refunds, disputes, duplicates, outages.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EmulatorControl } from 'credit402-stripe-emulator';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { loadServerConfig } from '../compose/engine-config.ts';
import { startReferenceServer, type RunningServer } from '../server/start-server.ts';
import { deliverEvent } from 'credit402-tooling/testing/deliver-event';
import { FlakyStore } from 'credit402-tooling/testing/flaky-store';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';

const WEATHER = 'GET /api/weather';
const SECRET = 'whsec_credit402webhooktests';

describe.each(['fastify', 'express', 'hono'] as const)('webhook endpoint on %s', (framework) => {
  let emulator: RunningEmulator;
  let control: EmulatorControl;
  let server: RunningServer;
  const store = new FlakyStore();
  const balanceOf = async (clientId: string) => (await store.getClient(clientId))?.balances.usd;
  const delivered = (eventId: string) => control.waitForEvent((r) => r.event.id === eventId && r.attempts.length > 0);

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    control = new EmulatorControl(emulator.controlUrl);
    const config = loadServerConfig({ overrides: { port: 0, framework, stripeApi: emulator.url, stripeWebhookSecret: SECRET } });
    server = await startReferenceServer(config, { store });
    await control.registerWebhook(server.webhookUrl!, SECRET);
  });
  afterAll(async () => {
    await server?.close();
    await emulator?.close();
  });
  beforeEach(async () => {
    await control.clearFaults();
  });

  /**
   * A first payment whose credit failed in the request path (503) and in the first webhook delivery
   * (500), whichever ran first: the PaymentIntent succeeded and nothing is credited.
   */
  async function uncreditedPayment(): Promise<{ paymentIntentId: string; card: string; eventId: string }> {
    const card = await createCardPaymentMethod(emulator.url);
    store.failNext('creditTopUp', 2);
    const response = await paidFetch(server.url, WEATHER, { paymentMethodId: card });
    expect(response.status).toBe(503);
    const [charge] = await control.journal({ method: 'POST', path: '/v1/payment_intents' }).then((entries) =>
      entries.filter((entry) => entry.params.payment_method === card));
    const paymentIntentId = (charge!.response as { id: string }).id;
    const record = await control.waitForEvent((r) => r.event.type === 'payment_intent.succeeded' && (r.event.data.object as { id: string }).id === paymentIntentId && r.attempts.length > 0);
    expect(record.attempts[0]?.status).toBe(500);
    return { paymentIntentId, card, eventId: record.event.id };
  }

  it('CR-14.3 credits a succeeded PaymentIntent the request path could not credit, once', async () => {
    const { card, eventId } = await uncreditedPayment();
    expect(await control.redeliver(eventId)).toMatchObject([{ status: 200 }]);
    const retried = await paidFetch(server.url, WEATHER, { paymentMethodId: card });
    const paid = retried.paymentResponse as { clientId: string; creditsRemaining: number; chargeId?: string };
    expect(paid).toMatchObject({ success: true, creditsRemaining: 49_500 });
    expect(paid.chargeId).toBeUndefined();
    expect(await control.redeliver(eventId)).toMatchObject([{ status: 200 }]);
    expect(await balanceOf(paid.clientId)).toBe(49_500);
    expect((await store.getClient(paid.clientId))?.topUps).toBe(1);
    const charges = (await control.journal({ method: 'POST', path: '/v1/payment_intents' })).filter((e) => e.params.payment_method === card);
    expect(charges).toHaveLength(1);
  });

  it('CR-14.4 CR-14.6 takes a refund and a dispute back, lets the balance go negative, and then serves nothing', async () => {
    const card = await createCardPaymentMethod(emulator.url);
    const first = await paidFetch(server.url, WEATHER, { paymentMethodId: card, topUpAmount: 50_001 });
    const { clientId, chargeId } = first.paymentResponse as { clientId: string; chargeId: string };
    expect(await balanceOf(clientId)).toBe(49_501);
    await delivered((await control.refund(chargeId, 101)).event.id);
    expect(await balanceOf(clientId)).toBe(39_401);
    await delivered((await control.dispute(chargeId)).event.id);
    expect(await balanceOf(clientId)).toBe(-500);
    const spend = await paidFetch(server.url, WEATHER, { clientId });
    expect(spend.status).toBe(402);
    expect(spend.body).toMatchObject({ error: 'insufficient_credits' });
    expect(await balanceOf(clientId)).toBe(-500);
  });

  it('CR-14.2 rejects a delivery with a wrong signature with 400 and changes nothing', async () => {
    const { eventId } = await uncreditedPayment();
    const record = await control.waitForEvent((r) => r.event.id === eventId);
    const forged = await deliverEvent(server.webhookUrl!, record.event, 'whsec_wrong');
    expect(forged.status).toBe(400);
    const unsigned = await deliverEvent(server.webhookUrl!, record.event, SECRET, '');
    expect(unsigned.status).toBe(400);
    const clientId = (record.event.data.object as { metadata: Record<string, string> }).metadata.credit402_client_id!;
    expect(await store.getClient(clientId)).toBeNull();
  });

  it('CR-14.2 answers 500 while the store is down, so the event is delivered again, and applies it on redelivery', async () => {
    const card = await createCardPaymentMethod(emulator.url);
    const first = await paidFetch(server.url, WEATHER, { paymentMethodId: card });
    const { clientId, chargeId } = first.paymentResponse as { clientId: string; chargeId: string };
    store.failNext('reverseTopUp');
    const refund = await control.refund(chargeId, 100);
    expect((await delivered(refund.event.id)).attempts[0]?.status).toBe(500);
    expect(await balanceOf(clientId)).toBe(49_500);
    expect(await control.redeliver(refund.event.id)).toMatchObject([{ status: 200 }]);
    expect(await balanceOf(clientId)).toBe(39_500);
    expect(await control.redeliver(refund.event.id)).toMatchObject([{ status: 200 }]);
    expect(await balanceOf(clientId)).toBe(39_500);
  });
});

describe('webhook deliveries in every order', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControl;
  let server: RunningServer;
  const store = new FlakyStore();

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    control = new EmulatorControl(emulator.controlUrl);
    // No endpoint is registered at the emulator: the test delivers the recorded events itself.
    const config = loadServerConfig({ overrides: { port: 0, stripeApi: emulator.url, stripeWebhookSecret: SECRET } });
    server = await startReferenceServer(config, { store });
  });
  afterAll(async () => {
    await server?.close();
    await emulator?.close();
  });

  const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
  it.each(orders.flatMap((order) => [[order, true], [order, false]] as const))(
    'CR-14.5 ends at credited − min(credited, refunded + disputed) − deductions for order %j (request path credited: %s)',
    async (order, requestPathCredits) => {
      const card = await createCardPaymentMethod(emulator.url);
      if (!requestPathCredits) store.failNext('creditTopUp');
      const first = await paidFetch(server.url, WEATHER, { paymentMethodId: card, topUpAmount: 50_001 });
      expect(first.status).toBe(requestPathCredits ? 200 : 503);
      const [charge] = (await control.journal({ method: 'POST', path: '/v1/payment_intents' })).filter((e) => e.params.payment_method === card);
      const paymentIntentId = (charge!.response as { id: string }).id;
      const events = [
        (await control.waitForEvent((r) => r.event.type === 'payment_intent.succeeded' && (r.event.data.object as { id: string }).id === paymentIntentId)).event,
        (await control.refund(paymentIntentId, 101)).event,
        (await control.dispute(paymentIntentId)).event,
      ];
      for (const index of order) {
        const delivery = await deliverEvent(server.webhookUrl!, events[index], SECRET);
        expect(delivery).toMatchObject({ status: 200, body: { received: true, eventId: events[index]!.id } });
        expect(JSON.stringify(delivery.body)).not.toMatch(/[0-9a-f]{64}/);
      }
      for (const index of order) {
        expect(await deliverEvent(server.webhookUrl!, events[index], SECRET)).toEqual({ status: 200, body: { received: true, eventId: events[index]!.id, action: 'duplicate' } });
      }
      const clientId = (charge!.params.metadata as { credit402_client_id: string }).credit402_client_id;
      // 50001 credited; 101 + 400 refunded and disputed minor units = 50100 units, capped at 50001.
      const deducted = requestPathCredits ? 500 : 0;
      expect(await store.getClient(clientId)).toMatchObject({ balances: { usd: 50_001 - 50_001 - deducted }, topUps: 1 });
    },
  );
});
