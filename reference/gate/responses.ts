// Builders of the gate's answers: challenges, payment errors, outages and paid passes.
import { HEADERS, MESSAGES, PROTOCOL_VERSION, type ErrorCode } from '../protocol/constants.ts';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import type { PaymentRequiredResponse, PaymentResponse } from '../protocol/types.ts';
import type { RespondDecision, ServeDecision } from './decision.ts';
import type { ResolvedRoute } from './routes.ts';

/** Every gated answer depends on the `payment` header and may carry a bearer clientId: never cached, never shared (CR-3.13). */
const PRIVATE_HEADERS = { 'cache-control': 'no-store', vary: 'payment' } as const;
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', ...PRIVATE_HEADERS } as const;

/** Both challenges of a route, built once at construction. */
export interface RouteChallenges {
  plain: RespondDecision;
  insufficient: RespondDecision;
}

function challengeDecision(body: PaymentRequiredResponse): RespondDecision {
  return {
    action: 'respond',
    status: 402,
    headers: { ...JSON_HEADERS, [HEADERS.PAYMENT_REQUIRED]: encodeBase64Json(body) },
    body,
  };
}

/** Builds the plain and the insufficient-credits challenge of a route. */
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
  return { plain: challengeDecision(plain), insufficient: challengeDecision(insufficient) };
}

function failureBody(errorCode: ErrorCode, message: string): PaymentResponse {
  return { success: false, creditsRemaining: 0, clientId: '', error: message, errorCode };
}

/** A 402 payment error: PaymentResponse body with success false. */
export function paymentError(errorCode: Exclude<ErrorCode, 'insufficient_credits' | 'service_unavailable'>, message: string): RespondDecision {
  return { action: 'respond', status: 402, headers: { ...JSON_HEADERS }, body: failureBody(errorCode, message) };
}

/** A 503 answer when the store cannot be reached: the handler is not called. */
export function serviceUnavailable(message: string): RespondDecision {
  return {
    action: 'respond',
    status: 503,
    headers: { ...JSON_HEADERS, 'retry-after': '1' },
    body: failureBody('service_unavailable', message),
  };
}

/** A paid pass: the `payment-response` header to add, then the handler runs; `refund` when `refundOnHandlerError` applies. */
export function serve(payment: PaymentResponse, refund?: () => Promise<void>): ServeDecision {
  const headers = { ...PRIVATE_HEADERS, [HEADERS.PAYMENT_RESPONSE]: encodeBase64Json(payment) };
  return refund === undefined ? { action: 'serve', headers, payment } : { action: 'serve', headers, payment, refund };
}
