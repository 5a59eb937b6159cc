// Test helper: POSTs a processor event to a webhook endpoint, signed as Stripe (and the emulator) sign it.
import { signPayload } from 'credit402-stripe-emulator';

/** Delivers `event` to `url` with a valid `Stripe-Signature` (or the given one); resolves status and JSON body. */
export async function deliverEvent(url: string, event: unknown, secret: string, signature?: string): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify(event, null, 2);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature ?? signPayload(payload, secret) },
    body: payload,
  });
  return { status: response.status, body: await response.json() };
}
