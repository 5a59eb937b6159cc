// Unit tests for the webhook endpoint's Stripe-Signature check: several v1 values, other schemes, the timestamp's age and future.
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RetrievedPaymentIntent } from '../processor/processor.ts';
import { StripeProcessor } from '../processor/stripe-processor.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { createWebhookHandler, type WebhookHandler } from './webhook-handler.ts';

const SECRET = 'whsec_credit402signaturetests';
const CLIENT = 'c'.repeat(64);

const v1 = (body: string, timestamp: number, secret = SECRET): string => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
const now = (): number => Math.floor(Date.now() / 1000);

function succeededEvent(id: string): string {
  const object = {
    id: `pi_${id}`, object: 'payment_intent', status: 'succeeded', amount: 500, amount_received: 500, currency: 'usd',
    metadata: { credit402_client_id: CLIENT, credit402_top_up_units: '50000' },
  };
  return JSON.stringify({ id: `evt_${id}`, object: 'event', type: 'payment_intent.succeeded', created: now(), data: { object } }, null, 2);
}

/** The Stripe processor's signature check, with every PaymentIntent the events name present at the processor (no network). */
class OfflineProcessor extends StripeProcessor {
  override async retrievePaymentIntent(id: string): Promise<RetrievedPaymentIntent> {
    return { id, status: 'succeeded', amountReceivedCents: 500, currency: 'usd', metadata: { credit402_client_id: CLIENT, credit402_top_up_units: '50000' } };
  }
}

describe('Stripe-Signature verification (CR-14.2)', () => {
  let store: MemoryStore;
  let handler: WebhookHandler;
  let count = 0;
  beforeEach(() => {
    store = new MemoryStore();
    handler = createWebhookHandler({ store, processor: new OfflineProcessor({ secretKey: 'sk_test_abc', webhookSecret: SECRET }), onError: () => {} });
  });
  const deliver = async (header: (body: string) => string): Promise<number> => {
    count += 1;
    const body = succeededEvent(`sig${count}`);
    return (await handler.handle(Buffer.from(body), header(body))).status;
  };
  const balance = async (): Promise<number | undefined> => (await store.getClient(CLIENT))?.balances.usd;

  it('CR-14.2 accepts a header whose v1 values include the valid one, first or last, and ignores other schemes', async () => {
    const t = now();
    const wrong = v1('other bytes', t);
    expect(await deliver((body) => `t=${t},v1=${wrong},v1=${v1(body, t)}`)).toBe(200);
    expect(await deliver((body) => `t=${t},v1=${v1(body, t)},v1=${wrong}`)).toBe(200);
    expect(await deliver((body) => `t=${t},v1=${v1(body, t, 'whsec_oldsecret')},v1=${v1(body, t)}`)).toBe(200);
    expect(await deliver((body) => `t=${t},v0=${wrong},v1=${v1(body, t)}`)).toBe(200);
    expect(await balance()).toBe(4 * 50_000);
  });

  it('CR-14.2 rejects a header whose v1 values all fail, or that has no v1 or no t, with 400 and no effect', async () => {
    const t = now();
    expect(await deliver((body) => `t=${t},v1=${v1(body, t, 'whsec_oldsecret')},v1=${v1('x', t)}`)).toBe(400);
    expect(await deliver((body) => `t=${t},v0=${v1(body, t)}`)).toBe(400);
    expect(await deliver((body) => `v1=${v1(body, t)}`)).toBe(400);
    expect(await balance()).toBeUndefined();
  });

  it('CR-14.2 rejects a header with more than one t, whichever t the signature was made with (was: t=<now>,t=<future> passed)', async () => {
    const t = now();
    const future = t + 86_400;
    // The future check read the first t, the SDK verifies with the last: a delivery signed a day ahead passed as current.
    expect(await deliver((body) => `t=${t},t=${future},v1=${v1(body, future)}`)).toBe(400);
    expect(await deliver((body) => `t=${t},t=${t},v1=${v1(body, t)}`)).toBe(400);
    expect(await deliver((body) => `t=${t},v1=${v1(body, t)}, t=${t}`)).toBe(400);
    // Two Stripe-Signature header lines arrive joined by ", ": two t as well.
    expect(await deliver((body) => `t=${t},v1=${v1(body, t)}, t=${future},v1=${v1(body, future)}`)).toBe(400);
    expect(await balance()).toBeUndefined();
    const answer = await handler.handle(Buffer.from(succeededEvent('twice')), `t=${t},t=${t},v1=x`);
    expect(answer.body).toEqual({ error: expect.stringMatching(/more than one t/) });
  });

  it('CR-14.2 bounds the timestamp both ways: 299 s old or ahead is accepted, 301 s old is stale, 301 s or a day ahead is refused', async () => {
    expect(await deliver((body) => `t=${now() - 301},v1=${v1(body, now() - 301)}`)).toBe(400);
    expect(await balance()).toBeUndefined();
    // The check runs within the same second as the signature; 299 s keeps a margin for a second boundary.
    expect(await deliver((body) => `t=${now() - 299},v1=${v1(body, now() - 299)}`)).toBe(200);
    for (const ahead of [301, 86_400]) {
      const t = now() + ahead;
      expect(await deliver((body) => `t=${t},v1=${v1(body, t)}`)).toBe(400);
    }
    expect(await deliver((body) => `t=${now() + 299},v1=${v1(body, now() + 299)}`)).toBe(200);
    expect(await balance()).toBe(2 * 50_000);
  });
});
