// Builders of the gate's answers: challenges, payment errors, outages and paid passes.
import { HEADERS, MESSAGES, PROTOCOL_VERSION, type ErrorCode } from '../protocol/constants.ts';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import type { PaymentRequiredResponse, PaymentResponse } from '../protocol/types.ts';
import type { RespondDecision, ServeDecision } from './decision.ts';
import { deepFreeze } from './frozen.ts';
import type { ResolvedRoute } from './routes.ts';

/** Every gated answer depends on the `payment` header and may carry a bearer clientId: never cached, never shared (CR-3.13). */
const PRIVATE_HEADERS = { 'cache-control': 'no-store', vary: 'payment' } as const;
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', ...PRIVATE_HEADERS } as const;

/** Both challenges of a route, built once at construction, deep-frozen and shared by every request. */
export interface RouteChallenges {
  readonly plain: RespondDecision;
  readonly insufficient: RespondDecision;
}

/** A deep-frozen answer given now, without calling the handler. */
export function respond(status: number, headers: Record<string, string>, body: unknown, code: string): RespondDecision {
  return deepFreeze<RespondDecision>({ action: 'respond', status, headers, body, code });
}

function challengeDecision(body: PaymentRequiredResponse, code: 'challenge' | 'insufficient_credits'): RespondDecision {
  return respond(402, { ...JSON_HEADERS, [HEADERS.PAYMENT_REQUIRED]: encodeBase64Json(body) }, body, code);
}

/** Builds the plain and the insufficient-credits challenge of a route, deep-frozen. */
export function buildChallenges(route: ResolvedRoute, publishableKey: string): RouteChallenges {
  const plain: PaymentRequiredResponse = {
    stripe402Version: PROTOCOL_VERSION,
    resource: route.description === undefined ? { url: route.path } : { url: route.path, description: route.description },
    accepts: [
      {
        scheme: 'stripe',
        currency: route.currency,
        amount: route.amount,
        minTopUp: route.minTopUp,
        publishableKey,
        ...(route.description === undefined ? {} : { description: route.description }),
      },
    ],
  };
  const insufficient: PaymentRequiredResponse = {
    ...plain,
    error: 'insufficient_credits',
    message: MESSAGES.INSUFFICIENT_CREDITS,
  };
  return Object.freeze({ plain: challengeDecision(plain, 'challenge'), insufficient: challengeDecision(insufficient, 'insufficient_credits') });
}

function failureBody(errorCode: ErrorCode, message: string): PaymentResponse {
  return { success: false, creditsRemaining: 0, clientId: '', error: message, errorCode };
}

/** A 402 payment error: PaymentResponse body with success false. */
export function paymentError(errorCode: Exclude<ErrorCode, 'insufficient_credits' | 'service_unavailable'>, message: string): RespondDecision {
  return respond(402, { ...JSON_HEADERS }, failureBody(errorCode, message), errorCode);
}

/** A 503 answer when the store cannot be reached: the handler is not called. */
export function serviceUnavailable(message: string): RespondDecision {
  return respond(503, { ...JSON_HEADERS, 'retry-after': '1' }, failureBody('service_unavailable', message), 'service_unavailable');
}

/** A deep-frozen paid pass: the `payment-response` header to add, then the handler runs and the adapter calls `settle`. */
export function serve(payment: PaymentResponse, settle: ServeDecision['settle']): ServeDecision {
  // Frozen member by member (the payment and the headers are flat), not walked: this runs on every paid request.
  const headers = Object.freeze({ 'cache-control': PRIVATE_HEADERS['cache-control'], vary: PRIVATE_HEADERS.vary, 'payment-response': paymentResponseHeader(payment) });
  return Object.freeze({ action: 'serve', headers, payment: Object.freeze(payment), settle });
}

/** The fields of a paid PaymentResponse in the order the gate builds them (spend.ts): what {@link paymentResponseHeader} writes itself. */
const PAID_FIELDS = ['success', 'creditsRemaining', 'clientId', 'chargeId'] as const;

/**
 * The `payment-response` header of a paid pass: exactly `encodeBase64Json(payment)`. A PaymentResponse as the gate
 * builds it (`success` true, a safe-integer balance, an id and a charge id of printable ASCII that JSON writes as they
 * are) is written as its JSON text directly and base64-encoded with `btoa` (its text is ASCII, so its UTF-8 bytes are
 * its Latin-1 ones), without `JSON.stringify` and a Buffer; any other is encoded by {@link encodeBase64Json}.
 */
export function paymentResponseHeader(payment: PaymentResponse): string {
  let fields = 0;
  for (const name in payment) {
    if (name !== PAID_FIELDS[fields]) return encodeBase64Json(payment);
    fields += 1;
  }
  const { success, creditsRemaining, clientId, chargeId } = payment;
  if (fields < 3 || success !== true || !Number.isSafeInteger(creditsRemaining) || !verbatimInJson(clientId)) return encodeBase64Json(payment);
  if (fields === 3) return btoa(`{"success":true,"creditsRemaining":${creditsRemaining},"clientId":"${clientId}"}`);
  if (!verbatimInJson(chargeId)) return encodeBase64Json(payment);
  return btoa(`{"success":true,"creditsRemaining":${creditsRemaining},"clientId":"${clientId}","chargeId":"${chargeId}"}`);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether `value` is a string of printable ASCII without `"` or `\`: JSON writes it as it is, between quotes. */
function verbatimInJson(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) return false;
  }
  return true;
}
