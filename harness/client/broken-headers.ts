// The broken protocol headers of CR-16.13: what the scripted server sends instead of a readable challenge or PaymentResponse.
import type { BrokenChallenge, BrokenPaymentResponse } from './script.ts';
import { encodeJson } from './wire.ts';

/** A broken answer: the header value and the body sent with it. */
interface BrokenAnswer {
  header: string;
  body: string;
}

const NOT_BASE64 = '%%% not base64 %%%';

/** The broken `payment-required` value and 402 body for `kind`, made from the route's readable challenge. */
export function brokenChallenge(kind: BrokenChallenge, challenge: { accepts: Array<Record<string, unknown>> } & Record<string, unknown>): BrokenAnswer {
  const [stripe = {}] = challenge.accepts;
  const without = (member: string): Record<string, unknown> => Object.fromEntries(Object.entries(stripe).filter(([key]) => key !== member));
  const object = (accepts: Array<Record<string, unknown>>): BrokenAnswer => {
    const broken = { ...challenge, accepts };
    return { header: encodeJson(broken), body: JSON.stringify(broken) };
  };
  switch (kind) {
    case 'not base64':
      return { header: NOT_BASE64, body: 'not a challenge' };
    case 'base64 of non-JSON':
      return { header: Buffer.from('not JSON {', 'utf8').toString('base64'), body: 'not a challenge' };
    case 'no publishableKey':
      return object([without('publishableKey')]);
    case 'no minTopUp':
      return object([without('minTopUp')]);
    case 'amount not a number':
      return object([{ ...stripe, amount: String(stripe.amount) }]);
    case 'no stripe element':
      return object([{ ...stripe, scheme: 'other' }]);
  }
}

/** The clientId a broken success PaymentResponse names: 64 hex digits that no payment gave. */
export const BROKEN_CLIENT_ID = 'b'.repeat(64);

/** The broken `payment-response` value for `kind`, in place of `response` (the success the server would send). */
export function brokenPaymentResponse(kind: BrokenPaymentResponse, response: Record<string, unknown>): string {
  switch (kind) {
    case 'not base64':
      return NOT_BASE64;
    case 'clientId not 64 hex':
      return encodeJson({ ...response, clientId: 'not-a-client-id' });
    case 'success false':
      return encodeJson({ ...response, success: false, clientId: BROKEN_CLIENT_ID });
  }
}
