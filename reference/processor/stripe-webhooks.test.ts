// Tests of the Stripe processor's webhook verification and event normalization, on events the emulator emitted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorControl } from 'credit402-stripe-emulator';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import type { StripeEvent } from 'credit402-stripe-emulator';
import { signPayload } from 'credit402-stripe-emulator';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { WebhookSignatureError } from './processor.ts';
import { StripeProcessor } from './stripe-processor.ts';
import { topUpMetadata } from './top-up-metadata.ts';

const SECRET = 'whsec_processortests';
const CLIENT = 'd'.repeat(64);

describe('StripeProcessor webhooks', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControl;
  let processor: StripeProcessor;
  const sign = (event: StripeEvent, secret = SECRET, timestamp?: number) => {
    const payload = JSON.stringify(event, null, 2);
    return { payload, signature: signPayload(payload, secret, timestamp) };
  };
  const parse = (event: StripeEvent) => {
    const { payload, signature } = sign(event);
    return processor.parseWebhookEvent(Buffer.from(payload), signature);
  };

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    control = new EmulatorControl(emulator.controlUrl);
    processor = new StripeProcessor({ secretKey: 'sk_test_webhooks', webhookSecret: SECRET, api: { host: '127.0.0.1', port: emulator.port, protocol: 'http' } });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  async function pay(metadata: Record<string, string>, amountCents = 501): Promise<{ paymentIntentId: string; succeeded: StripeEvent }> {
    const paymentMethodId = await createCardPaymentMethod(emulator.url);
    const customerId = await processor.findOrCreateCustomer(CLIENT, paymentMethodId);
    const { id } = await processor.charge({ amountCents, currency: 'usd', paymentMethodId, customerId, description: 'x', idempotencyKey: `k-${paymentMethodId}`, metadata });
    const record = await control.waitForEvent((r) => r.event.type === 'payment_intent.succeeded' && (r.event.data.object as { id: string }).id === id);
    return { paymentIntentId: id, succeeded: record.event };
  }

  it('normalizes payment_intent.succeeded, charge.refunded and charge.dispute.created', async () => {
    const { paymentIntentId, succeeded } = await pay(topUpMetadata(CLIENT, 50_001));
    expect(await parse(succeeded)).toEqual({ id: succeeded.id, type: 'payment_intent.succeeded', paymentIntentId, topUp: { clientId: CLIENT, units: 50_001, currency: 'usd' } });
    const refund = await control.refund(paymentIntentId, 101);
    expect(await parse(refund.event)).toEqual({ id: refund.event.id, type: 'charge.refunded', paymentIntentId, chargeId: refund.charge.id, amountRefundedCents: 101 });
    const dispute = await control.dispute(paymentIntentId);
    expect(await parse(dispute.event)).toEqual({ id: dispute.event.id, type: 'charge.dispute.created', paymentIntentId, disputeId: dispute.dispute.id, amountCents: 400 });
  });

  it('CR-14.3 CR-14.4 retrieves the PaymentIntent, charge and dispute an event names, and null for ids the processor does not have', async () => {
    const { paymentIntentId } = await pay(topUpMetadata(CLIENT, 50_001));
    expect(await processor.retrievePaymentIntent(paymentIntentId)).toEqual({
      id: paymentIntentId, status: 'succeeded', amountReceivedCents: 501, currency: 'usd', metadata: topUpMetadata(CLIENT, 50_001),
    });
    const refund = await control.refund(paymentIntentId, 101);
    expect(await processor.retrieveCharge(refund.charge.id)).toEqual({ id: refund.charge.id, paymentIntentId, amountRefundedCents: 101 });
    const dispute = await control.dispute(paymentIntentId, { amount: 150 });
    expect(await processor.retrieveDispute(dispute.dispute.id)).toEqual({ id: dispute.dispute.id, paymentIntentId, amountCents: 150 });
    const alone = await control.createCharge({ paymentMethod: await createCardPaymentMethod(emulator.url), amount: 700 });
    const aloneDispute = await control.dispute(alone.id);
    expect(await processor.retrieveCharge(alone.id)).toEqual({ id: alone.id, paymentIntentId: null, amountRefundedCents: 0 });
    expect(await processor.retrieveDispute(aloneDispute.dispute.id)).toEqual({ id: aloneDispute.dispute.id, paymentIntentId: null, amountCents: 700 });
    expect(await processor.retrievePaymentIntent('pi_credit402missing')).toBeNull();
    expect(await processor.retrieveCharge('ch_credit402missing')).toBeNull();
    expect(await processor.retrieveDispute('dp_credit402missing')).toBeNull();
  });

  it('says why a succeeded PaymentIntent is not a creditable top-up', async () => {
    const cases: Array<[Record<string, string>, number, string]> = [
      [{}, 501, 'not a credit402 top-up'],
      [{ credit402_client_id: 'nope', credit402_top_up_units: '50000' }, 501, 'credit402_client_id'],
      [{ credit402_client_id: CLIENT, credit402_top_up_units: '050000' }, 501, 'credit402_top_up_units'],
      [{ credit402_client_id: CLIENT, credit402_top_up_units: '50001' }, 500, 'less than the 501'],
    ];
    for (const [metadata, cents, reason] of cases) {
      const event = await parse((await pay(metadata, cents)).succeeded);
      expect(event).toMatchObject({ type: 'payment_intent.succeeded', topUp: null, ignoredBecause: expect.stringContaining(reason) });
    }
  });

  it('rejects a missing, forged or stale signature with a WebhookSignatureError', async () => {
    const { succeeded } = await pay(topUpMetadata(CLIENT, 50_000));
    const forged = sign(succeeded, 'whsec_other');
    const stale = sign(succeeded, SECRET, Math.floor(Date.now() / 1000) - 3600);
    const good = sign(succeeded);
    await expect(processor.parseWebhookEvent(good.payload, undefined)).rejects.toBeInstanceOf(WebhookSignatureError);
    await expect(processor.parseWebhookEvent(forged.payload, forged.signature)).rejects.toBeInstanceOf(WebhookSignatureError);
    await expect(processor.parseWebhookEvent(stale.payload, stale.signature)).rejects.toBeInstanceOf(WebhookSignatureError);
    await expect(processor.parseWebhookEvent(`${good.payload} `, good.signature)).rejects.toBeInstanceOf(WebhookSignatureError);
    expect(await processor.parseWebhookEvent(good.payload, good.signature)).toMatchObject({ type: 'payment_intent.succeeded' });
  });

  it('maps other event types to other, and needs a whsec_ secret', async () => {
    const paymentMethodId = 'pm_card_chargeDeclined';
    const customerId = await processor.findOrCreateCustomer(CLIENT, await createCardPaymentMethod(emulator.url));
    await processor.charge({ amountCents: 500, currency: 'usd', paymentMethodId, customerId, description: 'x', idempotencyKey: 'declined-1', metadata: {} }).catch(() => {});
    const failed = await control.waitForEvent((r) => r.event.type === 'payment_intent.payment_failed');
    expect(await parse(failed.event)).toEqual({ id: failed.event.id, type: 'other', processorType: 'payment_intent.payment_failed' });
    expect(() => new StripeProcessor({ secretKey: 'sk_test_x', webhookSecret: 'sk_test_x' })).toThrow(expect.objectContaining({ code: 'ERR_WEBHOOK_SECRET' }));
    await expect(new StripeProcessor({ secretKey: 'sk_test_x' }).parseWebhookEvent('{}', 't=1,v1=x')).rejects.toThrow(/no webhookSecret/);
  });
});
