// The bodies of the scripted server's protocol answers: challenges, payment errors, 503s and PaymentResponses.
import type { PricedRoute } from './routes.ts';
import { PUBLISHABLE_KEY } from './routes.ts';
import { INSUFFICIENT_MESSAGE, MALFORMED_MESSAGE, PROCESSING_FAILED_MESSAGE } from './wire.ts';

/** A challenge object (PaymentRequiredResponse, CR-5.2). */
export type Challenge = { accepts: Array<Record<string, unknown>> } & Record<string, unknown>;

/** Options of {@link challengeFor}. */
interface ChallengeOptions {
  insufficient?: boolean;
  /** Another scheme first in `accepts` and unknown members at every level (CR-16.16). */
  forwardCompatible?: boolean;
}

/** The challenge of `route` at `path` (CR-5.2–CR-5.5). */
export function challengeFor(route: PricedRoute, path: string, options: ChallengeOptions = {}): Challenge {
  const description = route.description === undefined ? {} : { description: route.description };
  const stripe = { scheme: 'stripe', currency: route.currency, amount: route.amount, minTopUp: route.minTopUp, publishableKey: PUBLISHABLE_KEY, ...description };
  const insufficient = options.insufficient ? { error: 'insufficient_credits', message: INSUFFICIENT_MESSAGE } : {};
  if (!options.forwardCompatible) return { stripe402Version: 1, resource: { url: path, ...description }, accepts: [stripe], ...insufficient };
  const other = { scheme: 'future-scheme', currency: 'eur', amount: route.amount * 7 + 3, minTopUp: 1, publishableKey: 'pk_other', invoice: 'lnbc1kit' };
  return {
    stripe402Version: 1,
    resource: { url: path, ...description, mimeType: 'application/json' },
    accepts: [other, { ...stripe, network: 'card', extra: { level: 2 } }],
    ...insufficient,
    nextVersion: { hint: 'ignore me' },
  };
}

/** A payment error (seed §7 Errors): a PaymentResponse with success false. */
export function paymentErrorBody(errorCode: string, error: string): Record<string, unknown> {
  return { success: false, creditsRemaining: 0, clientId: '', error, errorCode };
}

/** The body of a 503 `service_unavailable` answer (CR-8.9). */
export function unavailableBody(): Record<string, unknown> {
  return paymentErrorBody('service_unavailable', 'Service temporarily unavailable');
}

/** The success PaymentResponse of a served request; `chargeId` only after a charge. */
export function successResponse(clientId: string, creditsRemaining: number, chargeId?: string, forwardCompatible = false): Record<string, unknown> {
  return { success: true, ...(chargeId ? { chargeId } : {}), creditsRemaining, clientId, ...(forwardCompatible ? { receipt: { kit: true } } : {}) };
}

/** The message of `top_up_below_minimum` (seed §7: a descriptive message with the amounts). */
export function belowMinimumMessage(topUp: number, minTopUp: number): string {
  return `Top-up amount ${topUp} is below the minimum of ${minTopUp}`;
}

/** The message the scripted server sends with each payment error it is told to send. */
export const SCRIPTED_MESSAGES: Readonly<Record<string, string>> = {
  card_declined: 'Your card was declined.',
  payment_failed: PROCESSING_FAILED_MESSAGE,
  invalid_payment: MALFORMED_MESSAGE,
  top_up_below_minimum: 'Top-up amount 50000 is below the minimum of 60000',
};
