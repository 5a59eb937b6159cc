// Processor events the harness signs itself (§14): Stripe's event format and Stripe-Signature, POSTed to the target's webhook.
// The target acts on the objects it retrieves from the processor (CR-14.3, CR-14.4), so the events the harness delivers
// describe objects that exist at the emulator, except the forged ones, whose point is that they do not.
import { createHmac, randomBytes } from 'node:crypto';

/** The events of one top-up the target never saw, made at the emulator with their deliveries held; reversals when asked for. */
export interface TopUpEvents {
  paymentIntentId: string;
  succeeded: Record<string, unknown>;
  refund?: Record<string, unknown>;
  dispute?: Record<string, unknown>;
}

/** What the target answered to one delivery. */
export interface Delivery {
  eventId: string;
  type: string;
  status: number;
  text: string;
  headers: Record<string, string>;
}

const id = (prefix: string): string => `${prefix}_credit402h${randomBytes(10).toString('hex')}`;

/** One event as Stripe sends it. */
export function event(type: string, object: Record<string, unknown>): Record<string, unknown> {
  return {
    id: id('evt'),
    object: 'event',
    api_version: '2026-10-28.endive',
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** A made-up PaymentIntent object as `payment_intent.succeeded` carries it (forged events); `overrides` replace members. */
export function paymentIntent(clientId: string, units: number, cents: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: id('pi'),
    object: 'payment_intent',
    amount: cents,
    amount_received: cents,
    currency: 'usd',
    status: 'succeeded',
    latest_charge: id('ch'),
    metadata: { credit402_client_id: clientId, credit402_top_up_units: String(units) },
    livemode: false,
    ...overrides,
  };
}

/** `Stripe-Signature` over the exact body: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export function signature(body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** POSTs `body` to the webhook with the given `Stripe-Signature` (none when undefined). */
export async function post(url: string, body: string, stripeSignature: string | undefined): Promise<Omit<Delivery, 'eventId' | 'type'>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(stripeSignature === undefined ? {} : { 'stripe-signature': stripeSignature }) },
    body,
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, text: await response.text(), headers: Object.fromEntries(response.headers) };
}
