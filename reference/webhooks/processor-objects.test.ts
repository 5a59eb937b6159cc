// Unit tests: the webhook engine acts on the objects the processor returns, never on the signed event body (CR-14.3, CR-14.4).
import { describe, expect, it } from 'vitest';
import type { RetrievedCharge, RetrievedDispute, RetrievedPaymentIntent } from '../processor/processor.ts';
import { StripeProcessor } from '../processor/stripe-processor.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { signPayload } from 'credit402-stripe-emulator';
import { createWebhookHandler } from './webhook-handler.ts';

const SECRET = 'whsec_credit402processorobjects';
const CLIENT = 'e'.repeat(64);
const METADATA = { credit402_client_id: CLIENT, credit402_top_up_units: '50000' };

/** A processor whose objects are the maps below (signature checks are the Stripe processor's own). */
class FakeProcessor extends StripeProcessor {
  readonly intents = new Map<string, RetrievedPaymentIntent>();
  readonly charges = new Map<string, RetrievedCharge>();
  readonly disputes = new Map<string, RetrievedDispute>();
  retrievals: string[] = [];
  down = false;

  #get<T>(map: Map<string, T>, id: string): Promise<T | null> {
    this.retrievals.push(id);
    if (this.down) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    return Promise.resolve(map.get(id) ?? null);
  }
  override retrievePaymentIntent(id: string) {
    return this.#get(this.intents, id);
  }
  override retrieveCharge(id: string) {
    return this.#get(this.charges, id);
  }
  override retrieveDispute(id: string) {
    return this.#get(this.disputes, id);
  }
}

let count = 0;
function setUp() {
  const store = new MemoryStore();
  const processor = new FakeProcessor({ secretKey: 'sk_test_objects', webhookSecret: SECRET });
  const reported: string[] = [];
  const handler = createWebhookHandler({ store, processor, onError: (error) => reported.push(String(error)) });
  const deliver = async (type: string, object: Record<string, unknown>) => {
    count += 1;
    const payload = JSON.stringify({ id: `evt_objects${count}`, object: 'event', type, data: { object } });
    return handler.handle(Buffer.from(payload), signPayload(payload, SECRET));
  };
  const balance = async () => (await store.getClient(CLIENT))?.balances.usd;
  return { store, processor, reported, deliver, balance };
}

/** A PaymentIntent body as a forger would sign it: the largest top-up there is. */
const inflated = (id: string) => ({
  id, object: 'payment_intent', status: 'succeeded', amount: 99_999_999, amount_received: 99_999_999,
  metadata: { credit402_client_id: CLIENT, credit402_top_up_units: '9999999900' },
});

describe("webhook events are applied as the processor's objects say (CR-14.3, CR-14.4)", () => {
  it('CR-14.3 a signed payment_intent.succeeded naming a PaymentIntent the processor does not have credits nothing', async () => {
    const { processor, reported, deliver, balance } = setUp();
    expect(await deliver('payment_intent.succeeded', inflated('pi_forged'))).toMatchObject({ status: 200, body: { action: 'ignored' } });
    expect(processor.retrievals).toEqual(['pi_forged']);
    expect(await balance()).toBeUndefined();
    expect(reported.join('\n')).toContain('the processor has no PaymentIntent "pi_forged"');
  });

  it('CR-14.3 an inflated body of a real PaymentIntent credits what the processor says, once', async () => {
    const { processor, deliver, balance } = setUp();
    processor.intents.set('pi_real', { id: 'pi_real', status: 'succeeded', amountReceivedCents: 500, currency: 'usd', metadata: METADATA });
    expect(await deliver('payment_intent.succeeded', inflated('pi_real'))).toMatchObject({ status: 200, body: { action: 'credited' } });
    expect(await deliver('payment_intent.succeeded', inflated('pi_real'))).toMatchObject({ status: 200, body: { action: 'already_credited' } });
    expect(await balance()).toBe(50_000);
  });

  it('CR-14.3 a body claiming success for a PaymentIntent that has not succeeded, or was paid short, credits nothing', async () => {
    const { processor, deliver, balance } = setUp();
    processor.intents.set('pi_pending', { id: 'pi_pending', status: 'requires_action', amountReceivedCents: 0, currency: 'usd', metadata: METADATA });
    processor.intents.set('pi_short', { id: 'pi_short', status: 'succeeded', amountReceivedCents: 499, currency: 'usd', metadata: METADATA });
    for (const id of ['pi_pending', 'pi_short']) {
      expect(await deliver('payment_intent.succeeded', { ...inflated(id), amount_received: 500, metadata: METADATA })).toMatchObject({ status: 200, body: { action: 'ignored' } });
    }
    expect(await balance()).toBeUndefined();
  });

  it('CR-14.4 refunds and disputes take what the retrieved charge and dispute say, and nothing for objects the processor lacks', async () => {
    const { store, processor, deliver, balance } = setUp();
    await store.creditTopUp({ clientId: CLIENT, currency: 'usd', amount: 50_000, paymentIntentId: 'pi_paid' });
    processor.charges.set('ch_paid', { id: 'ch_paid', paymentIntentId: 'pi_paid', amountRefundedCents: 100 });
    processor.disputes.set('dp_paid', { id: 'dp_paid', paymentIntentId: 'pi_paid', amountCents: 50 });
    processor.charges.set('ch_alone', { id: 'ch_alone', paymentIntentId: null, amountRefundedCents: 500 });
    // The bodies claim more, and the PaymentIntent for a charge that has none: the processor's objects win.
    await deliver('charge.refunded', { id: 'ch_paid', object: 'charge', amount_refunded: 500, payment_intent: 'pi_paid' });
    await deliver('charge.dispute.created', { id: 'dp_paid', object: 'dispute', amount: 500, payment_intent: 'pi_paid' });
    await deliver('charge.refunded', { id: 'ch_alone', object: 'charge', amount_refunded: 500, payment_intent: 'pi_paid' });
    await deliver('charge.refunded', { id: 'ch_forged', object: 'charge', amount_refunded: 500, payment_intent: 'pi_paid' });
    await deliver('charge.dispute.created', { id: 'dp_forged', object: 'dispute', amount: 500, payment_intent: 'pi_paid' });
    expect(await balance()).toBe(50_000 - 10_000 - 5_000);
  });

  it('CR-14.2 answers 500 when the processor cannot be asked, so that the event is delivered again, then applies it', async () => {
    const { processor, deliver, balance } = setUp();
    processor.intents.set('pi_later', { id: 'pi_later', status: 'succeeded', amountReceivedCents: 500, currency: 'usd', metadata: METADATA });
    processor.down = true;
    const object = { id: 'pi_later', object: 'payment_intent', status: 'succeeded', amount_received: 500, metadata: METADATA };
    expect(await deliver('payment_intent.succeeded', object)).toMatchObject({ status: 500 });
    expect(await balance()).toBeUndefined();
    processor.down = false;
    expect(await deliver('payment_intent.succeeded', object)).toMatchObject({ status: 200, body: { action: 'credited' } });
    expect(await balance()).toBe(50_000);
  });

  it('never asks the processor about an id that is not an object id, and needs a processor that can retrieve', async () => {
    const { deliver, balance } = setUp();
    const real = new StripeProcessor({ secretKey: 'sk_test_objects', api: { host: '127.0.0.1', port: 9, protocol: 'http' } });
    for (const id of ['', '..', 'pi_1/../../v1/customers', 'pi 1']) expect(await real.retrievePaymentIntent(id)).toBeNull();
    expect(await deliver('payment_intent.succeeded', inflated('../v1/payment_intents'))).toMatchObject({ status: 200, body: { action: 'ignored' } });
    expect(await balance()).toBeUndefined();
    const parseOnly = { parseWebhookEvent: async () => ({ id: 'evt', type: 'other' as const, processorType: 'x' }) };
    expect(() => createWebhookHandler({ store: new MemoryStore(), processor: parseOnly as never })).toThrow(expect.objectContaining({ code: 'ERR_PROCESSOR' }));
  });
});
